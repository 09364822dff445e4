/* br_write.c - build Business Rules! profiler files in memory, byte for byte.
 *
 * Like prf_write.c this uses nothing but the C library and the types in br.h, so no lg_diag_*: a
 * failure is kept in the write buffer (write_buffer.h), later writes do nothing, and
 * lg_br_writer_finish returns it. Records are appended as they come; the writer does not check
 * the grammar (see br.h). Layout: docs/loaders/br.md. Every integer is big-endian.
 */
#include "br.h"
#include "write_buffer.h"

#include <stdlib.h>
#include <string.h>

/* Longest name each length field can describe. */
#define MODULE_NAME_MAX_BYTES UINT16_MAX
#define FUNCTION_NAME_MAX_BYTES UINT8_MAX

/* Appends the low `bytes` bytes of v, most significant first, whatever the host's order. */
static void put_be(lg_br_writer_t *w, uint64_t v, unsigned bytes)
{
    uint8_t buf[sizeof(uint64_t)];
    for (unsigned i = 0; i < bytes; i++)
        buf[i] = (uint8_t)(v >> (8u * (bytes - 1u - i)));
    lg_write_buffer_put(&w->buf, buf, bytes);
}

/* Starts a record: its type byte. Returns false once the writer has failed. */
static bool begin(lg_br_writer_t *w, unsigned type)
{
    if (w->buf.failed)
        return false;
    put_be(w, type, 1);
    if (!w->buf.failed)
        w->records++;
    return !w->buf.failed;
}

static size_t name_length(const char *s, size_t max)
{
    if (s == NULL)
        return 0;
    size_t n = strlen(s);
    return n > max ? max : n;
}

void lg_br_writer_init(lg_br_writer_t *w)
{
    memset(w, 0, sizeof *w);
}

void lg_br_writer_destroy(lg_br_writer_t *w)
{
    if (w == NULL)
        return;
    free(w->buf.data);
    memset(w, 0, sizeof *w);
}

void lg_br_write_module(lg_br_writer_t *w, uint16_t module, const char *name)
{
    size_t n = name_length(name, MODULE_NAME_MAX_BYTES);
    if (!begin(w, LG_BR_MODULE))
        return;
    put_be(w, module, 2);
    put_be(w, n, 2);
    lg_write_buffer_put(&w->buf, name, n);
}

/* CURRENT LINE and BACKTRACE INFORMATION share their layout. */
static void put_frame(lg_br_writer_t *w, unsigned type, uint16_t module, uint32_t line,
                      uint8_t clause)
{
    if (!begin(w, type))
        return;
    put_be(w, module, 2);
    put_be(w, line, 4);
    put_be(w, clause, 1);
}

void lg_br_write_current_line(lg_br_writer_t *w, uint16_t module, uint32_t line, uint8_t clause)
{
    put_frame(w, LG_BR_CURRENT_LINE, module, line, clause);
}

void lg_br_write_time(lg_br_writer_t *w, uint64_t nanoseconds)
{
    if (begin(w, LG_BR_TIME))
        put_be(w, nanoseconds, 8);
}

void lg_br_write_backtrace(lg_br_writer_t *w, uint16_t module, uint32_t line, uint8_t clause)
{
    put_frame(w, LG_BR_BACKTRACE, module, line, clause);
}

void lg_br_write_end(lg_br_writer_t *w)
{
    begin(w, LG_BR_END);
}

void lg_br_write_function_name(lg_br_writer_t *w, const char *name)
{
    size_t n = name_length(name, FUNCTION_NAME_MAX_BYTES);
    if (!begin(w, LG_BR_FUNCTION_NAME))
        return;
    put_be(w, n, 1);
    lg_write_buffer_put(&w->buf, name, n);
}

void lg_br_write_gosub(lg_br_writer_t *w)
{
    begin(w, LG_BR_GOSUB);
}

void lg_br_write_main_routine(lg_br_writer_t *w)
{
    begin(w, LG_BR_MAIN_ROUTINE);
}

static void put_mark(lg_br_writer_t *w, const lg_br_frame_t *f)
{
    switch (f->mark) {
    case LG_BR_MARK_NONE:
        break;
    case LG_BR_MARK_FUNCTION:
        lg_br_write_function_name(w, f->function);
        break;
    case LG_BR_MARK_GOSUB:
        lg_br_write_gosub(w);
        break;
    case LG_BR_MARK_MAIN:
        lg_br_write_main_routine(w);
        break;
    }
}

void lg_br_write_sample(lg_br_writer_t *w, const lg_br_frame_t *frames, size_t n, bool timed,
                        uint64_t nanoseconds)
{
    if (frames == NULL || n == 0) {
        lg_write_buffer_fail(&w->buf, LG_EINVAL);
        return;
    }
    lg_br_write_current_line(w, frames[0].module, frames[0].line, frames[0].clause);
    put_mark(w, &frames[0]);
    if (timed)
        lg_br_write_time(w, nanoseconds);
    for (size_t i = 1; i < n; i++) {
        lg_br_write_backtrace(w, frames[i].module, frames[i].line, frames[i].clause);
        put_mark(w, &frames[i]);
    }
    lg_br_write_end(w);
}

lg_err_t lg_br_writer_finish(lg_br_writer_t *w)
{
    return w->buf.failed ? w->buf.error : LG_OK;
}
