/* startup.c - the vector table and the reset handler: copy the fast code (.itcm_text) and .data
 * from flash, clear .bss, run the firmware, report its exit status through semihosting.
 * fast_region.ld keeps the table and the reset handler at the start of FLASH, outside ITCM. */
#include "fw.h"

void semihost_exit(int status);

/* Symbols of fast_region.ld. */
extern uint32_t _siitcm[], _sitcm[], _eitcm[];
extern uint32_t _sidata[], _sdata[], _edata[], _sbss[], _ebss[], _estack[];

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

/* No C library call before the copies: memcpy itself may be in .itcm_text. */
void Reset_Handler(void)
{
    uint32_t *src = _siitcm, *dst = _sitcm;
    while (dst < _eitcm)
        *dst++ = *src++;
    __asm__ volatile("dsb\n\tisb" ::: "memory"); /* the copied code is what runs next */
    src = _sidata;
    for (dst = _sdata; dst < _edata;)
        *dst++ = *src++;
    for (dst = _sbss; dst < _ebss;)
        *dst++ = 0;
    semihost_exit(app_main());
}
