/* pinned.S - a function the board keeps in its fast region whatever lorgen chooses: its section,
 * .ramfunc, is taken by the script's own line in .fast_text (as __ramfunc or a section attribute
 * does). 400 bytes, most of them after its return. */
        .section .ramfunc,"ax",@progbits
        .globl pinned_step
        .type pinned_step, @function
pinned_step:
        leal 1(%rdi), %eax
        ret
        .skip 396, 0xcc
        .size pinned_step, .-pinned_step
        .section .note.GNU-stack,"",@progbits
