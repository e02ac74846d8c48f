/*
 * Crucible's pod sandbox ("pause") process: holds the pod's namespaces open, reaps the zombies it
 * inherits as PID 1 of a shared PID namespace, and exits cleanly on SIGINT/SIGTERM. Built static
 * (gcc -static) so the image is this one file.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void stop(int sig) {
    (void) sig;
    _exit(0);
}

static void reap(int sig) {
    (void) sig;
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "-v") == 0) {
        puts("crucible-pause 1");
        return 0;
    }
    if (getpid() != 1) {
        fprintf(stderr, "crucible-pause: warning: not PID 1\n");
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = reap;
    sa.sa_flags = SA_NOCLDSTOP;
    sigaction(SIGCHLD, &sa, NULL);
    for (;;) {
        pause();
    }
    return 1;
}
