import FuzzEntries
#if canImport(Glibc)
    import Glibc
#endif

// Built by `scripts/fuzz.sh` with `-sanitize=fuzzer,address -D FUZZING`: libFuzzer owns `main`
// and calls the entry that `NETBENCH_FUZZ_TARGET` names for every input. A plain `swift build`
// makes a replayer instead: `netbench-fuzz TARGET FILE...` runs the same entry over saved inputs
// (crash reproducers, corpora) and says what each did.

#if FUZZING
    /// The entry chosen once per process.
    private let selectedTarget = FuzzTarget.fromEnvironment()

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        if case .violation(let why) = selectedTarget.run(bytes) {
            fatalError("netbench-fuzz \(selectedTarget.rawValue): \(why)")
        }
        return 0
    }

    /// libFuzzer's own driver (compiler-rt `FuzzerDriver.cpp`): parses its flags, runs the corpus.
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

    /// SwiftPM links an executable's `main` to `<module>_main` (`--defsym`), so libFuzzer's `main`
    /// is never pulled in: this is that entry point, handing over to libFuzzer's driver.
    @_cdecl("netbench_fuzz_main")
    public func netbenchFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        // scripts/fuzz.sh asks for the seeds an entry makes itself (real protocol bytes) this way.
        if let dir = getenv("NETBENCH_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) {
            return FuzzReplayer.writeSeeds(selectedTarget, to: dir)
        }
        var count = argc
        var vector = argv
        return runFuzzerDriver(&count, &vector) { data, size in fuzzOneInput(data, size) }
    }
#else
    @main
    struct FuzzReplay {
        static func main() {
            exit(FuzzReplayer.main(Array(CommandLine.arguments.dropFirst())))
        }
    }
#endif
