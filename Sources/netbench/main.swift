#if canImport(Glibc)
import Glibc
#endif
import NetbenchCommands

// A peer that goes away (a reset connection, a browser netbench stopped) must not kill netbench.
signal(SIGPIPE, SIG_IGN)
exit(Netbench.main(Array(CommandLine.arguments.dropFirst())))
