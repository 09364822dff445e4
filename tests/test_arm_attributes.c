/* test_arm_attributes.c - Tag_CPU_arch from Arm build attributes (loaders/arm_attributes.h): a
 * section as arm-none-eabi-gcc 12 writes it for a Cortex-M0+, the same in big-endian order,
 * other vendors and tags before it, and every truncation of it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "arm_attributes.h"

#include <string.h>

/* arm-none-eabi-gcc -mcpu=cortex-m0plus's .ARM.attributes: Tag_CPU_name "6S-M", then
 * Tag_CPU_arch 12 (v6S-M), Tag_CPU_arch_profile 'M', and more. */
static const unsigned char cortex_m0plus[] = {
    0x41, 0x2b, 0x00, 0x00, 0x00, 0x61, 0x65, 0x61, 0x62, 0x69, 0x00, 0x01, 0x21, 0x00, 0x00,
    0x00, 0x05, 0x36, 0x53, 0x2d, 0x4d, 0x00, 0x06, 0x0c, 0x07, 0x4d, 0x09, 0x01, 0x12, 0x04,
    0x14, 0x01, 0x15, 0x01, 0x17, 0x03, 0x18, 0x01, 0x19, 0x01, 0x1a, 0x01, 0x1e, 0x02};

static void test_gcc_section(void **state)
{
    (void)state;
    assert_int_equal(lg_arm_cpu_arch(cortex_m0plus, sizeof cortex_m0plus, false), 12);
    assert_true(lg_arm_arch_thumb1_only(12));
    assert_true(lg_arm_arch_thumb1_only(LG_ARM_ARCH_V6_M));
    assert_true(lg_arm_arch_thumb1_only(LG_ARM_ARCH_V8_M_BASE));
    assert_false(lg_arm_arch_thumb1_only(13)); /* v7E-M: Cortex-M4, M7 */
    assert_false(lg_arm_arch_thumb1_only(0));
}

static void test_big_endian(void **state)
{
    (void)state;
    unsigned char be[sizeof cortex_m0plus];
    memcpy(be, cortex_m0plus, sizeof be);
    /* The two lengths in the other byte order. */
    const unsigned char sub[4] = {0, 0, 0, 0x2b}, part[4] = {0, 0, 0, 0x21};
    memcpy(be + 1, sub, 4);
    memcpy(be + 12, part, 4);
    assert_int_equal(lg_arm_cpu_arch(be, sizeof be, true), 12);
    assert_int_equal(lg_arm_cpu_arch(be, sizeof be, false), 0); /* lengths out of range */
}

/* Another vendor's subsection first, and in the aeabi one a compatibility tag (a ULEB128 and a
 * string) and a high string tag before Tag_CPU_arch 17 (v8-M Mainline). */
static void test_vendor_and_tags_before(void **state)
{
    (void)state;
    static const unsigned char s[] = {
        'A',
        /* "gnu" subsection, 9 bytes: length, "gnu\0", one byte */
        9, 0, 0, 0, 'g', 'n', 'u', 0, 0x55,
        /* "aeabi" subsection: 4 + 6 + 16 = 26 */
        26, 0, 0, 0, 'a', 'e', 'a', 'b', 'i', 0,
        /* file sub-subsection: 1 + 4 + 11 = 16 */
        1, 16, 0, 0, 0,
        32, 1, 'x', 0, /* Tag_compatibility: 1, "x" */
        67, 'y', 0,    /* Tag_conformance: "y" */
        33, 0,         /* an odd tag from 32 on: an empty string */
        6, 17};        /* Tag_CPU_arch: v8-M Mainline */
    assert_int_equal(lg_arm_cpu_arch(s, sizeof s, false), 17);
    assert_false(lg_arm_arch_thumb1_only(17));
}

/* Cut anywhere, the section gives 12 or nothing, reading no byte past the cut (ASan checks). */
static void test_every_truncation(void **state)
{
    (void)state;
    for (size_t len = 0; len < sizeof cortex_m0plus; len++) {
        unsigned char *cut = test_malloc(len ? len : 1);
        memcpy(cut, cortex_m0plus, len);
        unsigned arch = lg_arm_cpu_arch(cut, len, false);
        assert_true(arch == 0 || arch == 12);
        test_free(cut);
    }
    assert_int_equal(lg_arm_cpu_arch(NULL, 0, false), 0);
    static const unsigned char not_a[] = {'B', 5, 0, 0, 0};
    assert_int_equal(lg_arm_cpu_arch(not_a, sizeof not_a, false), 0);
    /* A ULEB128 that never ends. */
    static const unsigned char endless[] = {'A', 17, 0, 0, 0, 'a', 'e', 'a', 'b', 'i', 0,
                                            1, 6, 0, 0, 0, 0x80};
    assert_int_equal(lg_arm_cpu_arch(endless, sizeof endless, false), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gcc_section),
        cmocka_unit_test(test_big_endian),
        cmocka_unit_test(test_vendor_and_tags_before),
        cmocka_unit_test(test_every_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
