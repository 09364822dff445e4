/* startup.c - the vector table and the reset handler: copy .data from flash, clear .bss, run
 * the firmware, report its exit status through semihosting. cortex_m.ld keeps the table at the
 * start of FLASH and the reset handler right after it. */
#include "fw.h"

void semihost_exit(int status);

/* Symbols of cortex_m.ld. */
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

void Reset_Handler(void)
{
    uint32_t *src = _sidata, *dst = _sdata;
    while (dst < _edata)
        *dst++ = *src++;
    for (dst = _sbss; dst < _ebss;)
        *dst++ = 0;
    semihost_exit(app_main());
}
