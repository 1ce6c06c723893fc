#if canImport(Glibc)
    import Glibc
#endif
import NetbenchCommands
import SystemIO

// A peer that goes away (a reset connection, a browser netbench stopped) must not kill netbench.
ProcessControl.ignoreBrokenPipes()
exit(Netbench.main(Array(CommandLine.arguments.dropFirst())))
