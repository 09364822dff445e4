/* loop.S - tests/e2e/asm_labels.sh: hand-written code as assembly often is. asm_sum_loop is a
 * global label with no type and no size (profilers that read only function symbols name it by
 * its address); its loop label 1 is assembler-local; asm_other is a typed, sized function in
 * the same section, so neither can move alone. */
        .text
        .globl asm_sum_loop
asm_sum_loop:
        xorl %eax, %eax
1:      addl %edi, %eax
        subl $1, %edi
        jnz 1b
        ret
        .globl asm_other
        .type asm_other, @function
asm_other:
        movl %edi, %eax
        ret
        .size asm_other, .-asm_other
        .section .note.GNU-stack,"",@progbits
