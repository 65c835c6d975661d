/*
 * daemon_main.c — main() of a daemon: built once per daemon with EG_DAEMON naming its
 * spec (services/daemons.h).
 */
#include "services/daemons.h"

int main(int argc, char **argv) { return eg_daemon_main(&EG_DAEMON, argc, argv); }
