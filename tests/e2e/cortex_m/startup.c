/* startup.c - the vector table and the reset handler: copy .data (and, built with FW_ITCM, the
 * fast code of .itcm_text) from flash, clear .bss, run the firmware, report its exit status
 * through semihosting. The board script (cortex_m.ld, or fast_region.ld with FW_ITCM) keeps the
 * table at the start of FLASH and the reset handler right after it, outside any fast region. */
#include "fw.h"

void semihost_exit(int status);

/* Symbols of the board script. */
extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[], _estack[];
#ifdef FW_ITCM
extern uint32_t _siitcm[], _sitcm[], _eitcm[];
#endif

void Reset_Handler(void);

/* A fault ends the run with a status of its own instead of hanging until the timeout. */
static void Fault_Handler(void)
{
    semihost_exit(70);
}

typedef void (*vector_t)(void);

__attribute__((section(".isr_vector"), used)) const vector_t vectors[16] = {
    (vector_t)(uintptr_t)_estack, /* initial stack pointer */
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
};

/* Copies the words of [dst, end) from src: no C library call before the copies, since memcpy
 * itself may be in .itcm_text. */
static void copy_words(const uint32_t *src, uint32_t *dst, const uint32_t *end)
{
    while (dst < end)
        *dst++ = *src++;
}

void Reset_Handler(void)
{
#ifdef FW_ITCM
    copy_words(_siitcm, _sitcm, _eitcm);
    __asm__ volatile("dsb\n\tisb" ::: "memory"); /* the copied code is what runs next */
#endif
    copy_words(_sidata, _sdata, _edata);
    for (uint32_t *dst = _sbss; dst < _ebss;)
        *dst++ = 0;
    semihost_exit(app_main());
}
