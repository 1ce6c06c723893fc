// swift-tools-version:6.0
// netbench: page-load benchmarks over TCP+TLS (HTTP/1.1, HTTP/2) and QUIC (HTTP/3)
// through a userspace link emulator. No package dependencies: C libraries come from
// Debian packages through system-library targets (see scripts/bootstrap.sh).
import PackageDescription

/// Release builds of the packet loop's targets without runtime exclusivity checks (see the targets).
let packetPathSettings: [SwiftSetting] = [
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))
]
/// The same for the per-request path of the HTTP/2 server and the load generator (HTTP/2 codec, TLS,
/// transports, the replay catalog, HDR histograms, the generator): swift_beginAccess and its
/// thread-local access set were ~5% of `netbench serve`'s samples under h2load; and for the QUIC
/// engine's per-packet path (2% of an HTTP/3 bulk transfer's samples on loopback).
let requestPathSettings: [SwiftSetting] = packetPathSettings

let package = Package(
    name: "netbench",
    products: [
        .executable(name: "netbench", targets: ["netbench"]),
    ],
    targets: [
        // C shims: module maps and static inline wrappers for macros; nothing else.
        .systemLibrary(name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNghttp2", path: "Sources/CNghttp2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CNgtcp2", path: "Sources/CNgtcp2", pkgConfig: "libngtcp2",
                       providers: [.apt(["libngtcp2-dev", "libngtcp2-crypto-gnutls-dev", "libgnutls28-dev"])]),
        .systemLibrary(name: "CNghttp3", path: "Sources/CNghttp3", pkgConfig: "libnghttp3",
                       providers: [.apt(["libnghttp3-dev"])]),
        .systemLibrary(name: "CLinux", path: "Sources/CLinux"),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),

        .target(name: "BenchCore"),
        .target(name: "BenchModel", dependencies: ["BenchCore", "CZlib"]),
        .target(name: "Statistics", dependencies: ["BenchCore", "CZlib"], swiftSettings: requestPathSettings),
        // The packet loop's per-packet path: release builds skip the runtime exclusivity checks
        // (swift_beginAccess was 7% of the loop's samples at 1 Gbit/s); debug builds and tests keep them.
        .target(name: "LinkModel", dependencies: ["BenchCore"], swiftSettings: packetPathSettings),
        .target(name: "SystemIO", dependencies: ["BenchCore", "CLinux"]),
        .target(name: "LinkEmulator", dependencies: ["LinkModel", "SystemIO"], swiftSettings: packetPathSettings),
        .target(name: "TLS", dependencies: ["BenchCore", "COpenSSL"], swiftSettings: requestPathSettings),
        .target(name: "HTTPCodec", dependencies: ["BenchCore", "CNghttp2"], swiftSettings: requestPathSettings),
        .target(name: "QUIC", dependencies: ["BenchCore", "CNgtcp2", "CNghttp3"], swiftSettings: requestPathSettings),
        .target(
            name: "Transport", dependencies: ["SystemIO", "TLS", "HTTPCodec", "QUIC"],
            swiftSettings: requestPathSettings),
        .target(name: "Replay", dependencies: ["Transport", "BenchModel"], swiftSettings: requestPathSettings),
        .target(name: "Reporters", dependencies: ["BenchModel", "Statistics"]),
        // Orchestration: the plan, the scheduler (warm-ups, interleaving, shards, resume, adaptive
        // runs), the results sink, and the one step that finishes every run's record.
        .target(name: "Runner", dependencies: [
            "BenchModel", "Statistics", "LinkModel", "SystemIO", "Transport", "TLS", "QUIC",
        ]),
        // The testbed: emulated network or loopback, replay servers, a profile's block of runs,
        // netbench's own client, and the protocols through which other clients and workloads plug in.
        .target(name: "Testbed", dependencies: ["Runner", "Replay", "LinkEmulator"]),
        // Real browsers as testbed clients (Chromium over DevTools, Firefox over WebDriver BiDi).
        .target(name: "Browsers", dependencies: ["Testbed", "TLS", "Statistics", "CPNG"]),
        // What runs on a testbed besides page loads: cross traffic, fairness, responsiveness, calibration.
        .target(name: "Workloads", dependencies: ["Testbed"], swiftSettings: requestPathSettings),
        // `run --server`: the same client against a real server, a second executor factory.
        .target(name: "RemoteExecution", dependencies: ["Testbed"]),
        // The command framework: declared options and arguments, parsing, generated help, man page
        // and completion scripts. Knows nothing of netbench's domain.
        .target(name: "CommandLineKit", dependencies: ["BenchCore"]),
        // netbench's commands, declared with CommandLineKit; a library so that tests parse in-process.
        .target(name: "NetbenchCommands", dependencies: [
            "CommandLineKit", "Runner", "Testbed", "Browsers", "Workloads", "RemoteExecution", "Reporters",
            "BenchModel", "Statistics", "LinkEmulator", "SystemIO", "TLS", "QUIC",
            "Replay", "HTTPCodec",
        ]),
        .executableTarget(name: "netbench", dependencies: ["NetbenchCommands", "SystemIO"]),
        // Fuzz entries (file parsers, HTTP/1.1, the HTTP/3 server's datagram input) and their
        // driver: libFuzzer with scripts/fuzz.sh (-D FUZZING), else a replayer of saved inputs.
        .target(name: "FuzzEntries", dependencies: [
            "BenchModel", "LinkModel", "HTTPCodec", "QUIC", "TLS", "Reporters",
        ]),
        .executableTarget(name: "netbench-fuzz", dependencies: ["FuzzEntries"]),

        // What the tests share: prerequisites (skipped with a reason outside CI, failed under CI), the
        // checkout's root, the built binary, the pages several targets load (Fixtures), a quiet observer.
        .target(name: "TestSupport", dependencies: ["Runner", "BenchModel"], path: "Tests/Support",
                exclude: ["aioquic_perf.py"], resources: [.copy("Fixtures")]),
        .testTarget(name: "BenchCoreTests", dependencies: ["BenchCore"]),
        .testTarget(name: "BenchModelTests", dependencies: ["BenchModel", "TestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "StatisticsTests", dependencies: ["Statistics"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "LinkModelTests", dependencies: ["LinkModel", "TestSupport"]),
        .testTarget(name: "TLSTests", dependencies: ["TLS"]),
        .testTarget(name: "HTTPCodecTests", dependencies: ["HTTPCodec", "BenchCore"]),
        .testTarget(name: "QUICTests", dependencies: ["QUIC", "TestSupport"]),
        .testTarget(name: "SystemIOTests", dependencies: ["SystemIO", "BenchCore", "TestSupport"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "SystemIO", "BenchCore", "TLS", "QUIC"]),
        .testTarget(name: "LinkEmulatorTests", dependencies: ["LinkEmulator", "SystemIO", "TestSupport"]),
        // The catalog, the renderer, the loader's policy: pure, no sockets.
        .testTarget(name: "ReplayTests", dependencies: [
            "Replay", "BenchModel", "BenchCore", "Transport", "TestSupport",
        ]),
        // Page loads on the testbed, as `netbench run` assembles it: loopback servers and, as root,
        // emulated networks (namespaces, TUN devices).
        .testTarget(name: "TestbedTests", dependencies: [
            "Testbed", "Runner", "Replay", "NetbenchCommands", "BenchModel", "BenchCore", "SystemIO", "Transport",
            "TLS", "HTTPCodec", "TestSupport",
        ]),
        // Chromium as a client (needs Chromium) and its results, flags and pins (pure).
        .testTarget(name: "BrowsersTests", dependencies: [
            "Browsers", "Testbed", "Runner", "Replay", "NetbenchCommands", "BenchModel", "BenchCore", "SystemIO",
            "TestSupport",
        ]),
        // Cross traffic and responsiveness on emulated links (root), and their summaries (pure).
        .testTarget(name: "WorkloadsTests", dependencies: [
            "Workloads", "Testbed", "Runner", "NetbenchCommands", "BenchModel", "BenchCore", "TestSupport",
        ]),
        // `run --server` against loopback servers: probes, certificate checks, response checks.
        .testTarget(name: "RemoteExecutionTests", dependencies: [
            "RemoteExecution", "Testbed", "Runner", "BenchModel", "BenchCore", "TLS", "TestSupport",
        ]),
        .testTarget(name: "ReportersTests", dependencies: ["Reporters", "TestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "TLS", "QUIC", "BenchCore"]),
        // The scheduler with stand-in executors (no sockets) and the append-only results log.
        .testTarget(name: "RunnerTests", dependencies: [
            "Runner", "BenchModel", "BenchCore", "SystemIO", "Transport", "Statistics", "TestSupport",
        ]),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzEntries"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CLITests", dependencies: [
            "CommandLineKit", "NetbenchCommands", "Runner", "BenchCore", "TestSupport",
        ]),
    ],
    swiftLanguageModes: [.v6]
)
