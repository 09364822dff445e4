/* loop.S - ph_loop(n) for tests/e2e/phase_choice.sh: a loop whose two halves lie 234 bytes apart
 * inside one 290-byte function, so that in a 256-byte direct-mapped cache of 32-byte lines they
 * share a set when the function starts at phase 0 of a line and do not at phase 16:
 *   the jump at 24:      phase 0 -> line 0 (set 0)    phase 16 -> line 1 (set 1)
 *   the counter at 258:  phase 0 -> line 8 (set 0)    phase 16 -> line 8 (set 0)
 * Written in assembly so that the offsets are the test's, not the compiler's. x86-64, System V:
 * returns n in rax after n turns of the loop. */
    .section .text.ph_loop,"ax",@progbits
    .globl ph_loop
    .type ph_loop, @function
    .p2align 4
ph_loop:
    xor %eax, %eax
    jmp .Lfirst
    .org 24, 0x90
.Lfirst:
    jmp .Lsecond
    .org 258, 0x90
.Lsecond:
    add $1, %rax
    sub $1, %rdi
    jnz .Lfirst
    ret
    .org 290, 0xcc
    .size ph_loop, . - ph_loop
    .section .note.GNU-stack,"",@progbits
