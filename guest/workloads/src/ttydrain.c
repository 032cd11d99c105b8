/* ttydrain: waits until everything written to the terminal on stdout has been sent (tcdrain).
 * /init runs it before `poweroff -f`: the 8250 driver sends a line written by a program from
 * its transmit buffer on interrupts, and a power-off right after the write loses the tail
 * (seen under jkvm: the last console line missing). */
#include <termios.h>
#include <unistd.h>

int main(void) {
    return tcdrain(STDOUT_FILENO) == 0 ? 0 : 1;
}
