/* arm_attributes.h - the architecture an Arm ELF file was built for, from its build attributes
 * section (.ARM.attributes, SHT_ARM_ATTRIBUTES), as the Arm ABI's "Addenda to, and Errata in,
 * the ABI for the Arm Architecture" lays it out:
 *
 *   'A'  then subsections: u32 length (this field included, in the file's byte order),
 *        a NUL-terminated vendor name, then for vendor "aeabi" sub-subsections: a tag byte
 *        (1: the whole file), u32 length (tag and length included), attributes: a ULEB128 tag
 *        and its value, a ULEB128 or a NUL-terminated string (tags 4, 5, 67 and odd tags from
 *        32 on are strings; Tag_compatibility, 32, is a ULEB128 then a string)
 *
 * lorgen wants one attribute, Tag_CPU_arch (6), to tell Thumb-1-only cores (Armv6-M, Armv8-M
 * Baseline), whose linker veneers are longer, from the rest.
 */
#ifndef LG_ARM_ATTRIBUTES_H
#define LG_ARM_ATTRIBUTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Tag_CPU_arch values of cores without Thumb-2's 32-bit branches in every form (their GNU ld
 * long-branch veneer is 16 bytes, not 8): Armv6-M, Armv6S-M, Armv8-M Baseline. */
#define LG_ARM_ARCH_V6_M 11u
#define LG_ARM_ARCH_V6S_M 12u
#define LG_ARM_ARCH_V8_M_BASE 16u

/* The file-scope Tag_CPU_arch of the "aeabi" attributes in data (len bytes, the section's
 * contents; big_endian: the file's byte order), or 0 when the section does not give it or is
 * malformed (nothing past len is read). O(len). */
unsigned lg_arm_cpu_arch(const unsigned char *data, size_t len, bool big_endian);

/* True for the Tag_CPU_arch values above. */
bool lg_arm_arch_thumb1_only(unsigned arch);

#endif
