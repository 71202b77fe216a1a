// swift-tools-version:6.2
// The griptrack package: see docs/design.md ("Module map", "Import rules") for which target may import which.

import PackageDescription

/// `scripts/fuzz` sets GRIPTRACK_FUZZ=1 (with its own scratch path, `.build-fuzz`): griptrack's own modules are then
/// compiled with libFuzzer's coverage counters and AddressSanitizer, and with `-enable-testing` so the harnesses can
/// reach internal parsers. Dependencies stay uninstrumented: the fuzzer's feedback is griptrack's code only, and the
/// build is shorter. A normal build never sees any of this (docs/fuzzing.md).
let fuzzing = Context.environment["GRIPTRACK_FUZZ"] == "1"

let strictSwift: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
] + (fuzzing ? [.unsafeFlags(["-sanitize=fuzzer,address", "-enable-testing"])] : [])

var package = Package(
    name: "griptrack",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "griptrack", targets: ["griptrack"]),
        .library(name: "GripWire", targets: ["GripWire"]),
        .library(name: "GripAnalysis", targets: ["GripAnalysis"]),
        .library(name: "GripStream", targets: ["GripStream"]),
        .library(name: "GripEntitlements", targets: ["GripEntitlements"]),
        .executable(name: "griptrackd", targets: ["griptrackd"]),
        .executable(name: "griptrack-hub", targets: ["griptrack-hub"]),
        .library(name: "GripStore", targets: ["GripStore"]),
        // For Benchmarks/ (the replay benchmark renders its long capture with the simulator; the D-Bus signal → ring
        // benchmark drives GripBlueZ's notification fast path).
        .library(name: "GripSimulator", targets: ["GripSimulator"]),
        .library(name: "GripBlueZ", targets: ["GripBlueZ"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // Bytes → samples: device profiles, btsnoop, HCI/L2CAP/ATT. Pure: stdlib only.
        .target(name: "GripWire", swiftSettings: strictSwift),
        // Device time, efforts, recordings, metrics. Pure.
        .target(name: "GripAnalysis", dependencies: ["GripWire"], swiftSettings: strictSwift),
        // The system calls griptrack shares (docs/design.md, "Import rules"): the wake pipe, signals as a readable pipe,
        // the one way to start a named thread. Standard library and Glibc only.
        .target(name: "GripSystem", swiftSettings: strictSwift),
        // griptrack's release number (GriptrackRelease): no dependencies, so every executable's `--version` reads the
        // same constant and a release bump recompiles little.
        .target(name: "GripRelease", swiftSettings: strictSwift),
        // The daemon's socket protocol (docs/protocol.md): requests typed and checked once, the line writer, the
        // version. Pure: clients (the CLI, the web app, MQTT) and griptrackd speak it; the request fuzzer needs nothing else.
        .target(name: "GripProtocol", dependencies: ["GripAnalysis"], swiftSettings: strictSwift),
        // The SPSC ring and the consumer loop (the hot path).
        .target(
            name: "GripStream",
            dependencies: ["GripWire", "GripAnalysis", "GripSystem", .product(name: "Atomics", package: "swift-atomics")],
            swiftSettings: strictSwift + [.strictMemorySafety()]
        ),
        // `griptrack replay`'s report and its JSON: a sink of the consumer loop, off the hot-path module (docs/design.md,
        // "Module map"). Used by the CLI and the replay tests.
        .target(name: "GripReplay", dependencies: ["GripWire", "GripAnalysis", "GripStream"], swiftSettings: strictSwift),
        // libdbus-1 (modulemap + shim.h); only GripBlueZ imports it.
        .systemLibrary(name: "CDBus", path: "Sources/CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // recvmmsg(2), which Swift's Glibc module leaves out; only GripBlueZ's datagram receiver calls it.
        .target(name: "CSocketBatch"),
        // BlueZ GATT client over D-Bus; knows nothing about grips.
        .target(
            name: "GripBlueZ", dependencies: ["CDBus", "CSocketBatch"],
            swiftSettings: strictSwift + [.strictMemorySafety()]),
        // Synthetic Progressor sessions written as btsnoop captures (the replay fixtures in captures/).
        .target(name: "GripSimulator", dependencies: ["GripWire"], swiftSettings: strictSwift),
        // SQLite through GRDB: schema, recordings, sample chunks, entitlement state, the quota transaction.
        .target(
            name: "GripStore",
            dependencies: [
                "GripAnalysis", "GripEntitlements", .product(name: "GRDB", package: "GRDB.swift"),
                // WebRole: a web credential's role is the WEB request's; ImportComparison, computed here from the
                // stored figures for the CLI and the daemon alike.
                "GripProtocol",
                // SHA-256 of the web app's tokens: only their hashes are stored (docs/web.md).
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSwift
        ),
        // The one place access is decided: resolver, App Store signed-data verifier, free-tier policy.
        .target(
            name: "GripEntitlements",
            dependencies: [
                // Untrusted text quoted for messages and logs (UntrustedText).
                "GripSystem",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSwift
        ),
        // zlib's inflate and crc32 for GripImport's zip reader (a repeaters bundle): computation on bytes, no I/O.
        .systemLibrary(name: "CZlibInflate", path: "Sources/CZlibInflate", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libqrencode, for the QR code of `griptrack web pair`; only the CLI's Output/TerminalQRCode.swift imports it.
        .systemLibrary(name: "CQREncode", path: "Sources/CQREncode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // The Tindeq app's CSV exports (and griptrack's own CSV export) ↔ typed imports and samples, and the zip a
        // repeaters bundle comes in. Pure: it takes bytes (whole, or a chunk at a time) and a file name, never reads
        // a file.
        .target(
            name: "GripImport",
            dependencies: [
                "GripAnalysis", "GripWire", "CZlibInflate",
                // SHA-256, the identity by which an export imported before is recognised (ImportDigest).
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSwift),
        // The configuration file (/etc/griptrack/griptrack.toml): a table of known keys, shared by CLI and daemon.
        .target(
            name: "GripConfig",
            // GripAnalysis (pure): `[protocols]` is read by the one notation parser when the file loads.
            dependencies: ["GripEntitlements", "GripWire", "GripAnalysis", .product(name: "TOMLKit", package: "TOMLKit")],
            swiftSettings: strictSwift
        ),
        // Cross-device sync: the SQLite outbox → PostgreSQL, and reads of the account's recordings back. The only target
        // that imports PostgresNIO (docs/sync.md).
        .target(
            name: "GripSync",
            dependencies: [
                "GripStore", "GripEntitlements", "GripSystem",
                // `[sync]` of griptrack.toml → a SyncClient (SyncConfiguration).
                "GripConfig",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                // griptrackd's sync service.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSwift
        ),
        // libmosquitto (the Eclipse Mosquitto client) as a system library (modulemap and `shim.h`); only GripMQTT
        // imports it.
        .systemLibrary(
            name: "CMosquitto", path: "Sources/CMosquitto", pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]),
        // MQTT for Home Assistant: a client of the daemon's own socket protocol on one side, a bounded queue into
        // libmosquitto on the other (docs/home-assistant.md). Only GripDaemon imports it.
        .target(
            name: "GripMQTT", dependencies: ["CMosquitto", "GripProtocol", "GripSystem", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSwift),
        // Prometheus text exposition of the daemon's counters through swift-metrics (docs/metrics.md). Only
        // GripDaemon imports it.
        .target(
            name: "GripMetrics",
            dependencies: [
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: strictSwift),
        .executableTarget(
            name: "griptrack",
            dependencies: [
                "GripWire", "GripAnalysis", "GripStream", "GripSimulator", "GripStore", "GripEntitlements", "GripConfig",
                "GripProtocol", "GripSystem",
                // replay: the report and its JSON.
                "GripReplay",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // record/devices/status: the daemon client, the in-process daemon (--replay, --direct), BlueZ.
                "GripDaemon", "GripBlueZ", .product(name: "Logging", package: "swift-log"),
                // import: the Tindeq app's exports (a repeaters bundle's zip too: GripImport reads it).
                "GripImport",
                // sync, list --everywhere.
                "GripSync",
                // web pair: the QR code.
                "CQREncode",
            ],
            swiftSettings: strictSwift
        ),
        // The service: a source into the stream, the socket protocol, sd_notify, lifecycle (docs/design.md, "Module map" and "Interfaces").
        .target(
            name: "GripDaemon",
            dependencies: [
                "GripWire", "GripAnalysis", "GripStream", "GripBlueZ", "GripConfig",
                "GripStore", "GripEntitlements", "GripSync", "GripMQTT", "GripMetrics", "GripProtocol", "GripSystem",
                "GripRelease",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        // The web app griptrackd serves with `[web] listen` (docs/web.md): one more client of the daemon's socket, with
        // its own roles (pairing, bearer tokens). Only the executables import it.
        .target(
            name: "GripWeb",
            dependencies: [
                "GripDaemon", "GripStore", "GripConfig", "GripProtocol", "GripHTTP", "GripSystem",
                .product(name: "Hummingbird", package: "hummingbird"),
                // HTTPS with `[web] tls_certificate` and `tls_key` (NIOSSL: already built for postgres-nio).
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The daemon's Unix socket, read with backpressure (DaemonLink).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The HTTP parts an event stream writes on its connection's event loop (EventStreamWriter); the
                // package is Hummingbird's own dependency already.
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [
                // The app's pages, script and style, compiled into the binary (docs/web.md, "Assets").
                .embedInCode("Assets/index.html"), .embedInCode("Assets/history.html"),
                .embedInCode("Assets/app.css"), .embedInCode("Assets/live.js"), .embedInCode("Assets/history.js"),
                .embedInCode("Assets/common.js"), .embedInCode("Assets/training.js"),
            ],
            swiftSettings: strictSwift
        ),
        // What every HTTP door shares (the web app and griptrack-hub): connection cap, idle timeout, declared-size
        // refusal, and the one per-client rate limit (docs/design.md, "Module map").
        .target(
            name: "GripHTTP",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift),
        // griptrack-hub's library (docs/account.md): App Store Server Notifications over HTTP (Hummingbird 2),
        // verified by GripEntitlements and stored through GripSync. Only griptrack-hub imports it.
        .target(
            name: "GripHub",
            dependencies: [
                "GripSync", "GripEntitlements", "GripConfig", "GripHTTP",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSwift
        ),
        // The hub executable: configuration, logging and the service group around GripHub's server.
        .executableTarget(
            name: "griptrack-hub",
            dependencies: [
                "GripHub", "GripConfig", "GripRelease",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSwift
        ),
        .executableTarget(
            name: "griptrackd",
            dependencies: [
                "GripDaemon", "GripConfig", "GripSync", "GripWeb", "GripProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift
        ),
        .target(
            name: "GripTestSupport",
            dependencies: ["GripWire", "GripAnalysis", "GripStream", "GripSimulator", "GripBlueZ"],
            path: "Tests/GripTestSupport",
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "GripWireTests",
            dependencies: ["GripWire", "GripSimulator", "GripTestSupport", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "GripImportTests",
            dependencies: ["GripImport", "GripAnalysis", "GripWire", "CZlibInflate",
                           .product(name: "PropertyBased", package: "swift-property-based")],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "GripAnalysisTests",
            dependencies: ["GripAnalysis", "GripWire", "GripSimulator", "GripTestSupport",
                           .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strictSwift),
        .testTarget(
            name: "GripDaemonTests",
            dependencies: ["GripDaemon", "GripEntitlements", "GripStream", "GripReplay", "GripSync", "GripBlueZ", "GripTestSupport", .product(name: "Logging", package: "swift-log"),
                           "GripStore", "GripAnalysis", "GripConfig", "GripProtocol", "GripSystem"],
            swiftSettings: strictSwift
        ),
        .testTarget(name: "GripBlueZTests", dependencies: ["GripBlueZ", "GripTestSupport"], swiftSettings: strictSwift),
        .testTarget(name: "GripStreamTests", dependencies: ["GripStream", "GripTestSupport", "RingStress"], swiftSettings: strictSwift),
        .testTarget(
            name: "GripReplayTests", dependencies: ["GripReplay", "GripStream", "GripWire", "GripSimulator", "GripTestSupport"],
            swiftSettings: strictSwift),
        // The ring's two-thread stress scenarios, shared by GripStreamTests and `ring-stress`, which `scripts/test` builds
        // alone under ThreadSanitizer (a TSan build of the whole package took most of CI's time).
        .target(name: "RingStress", dependencies: ["GripStream"], path: "Tests/RingStress", swiftSettings: strictSwift),
        .executableTarget(
            name: "ring-stress", dependencies: ["RingStress"], path: "Tests/RingStressRunner", swiftSettings: strictSwift),
        // A child process for GripStoreTests (SIGKILL while recording, processes racing for the last free slot).
        .executableTarget(
            name: "store-crash-child",
            dependencies: ["GripStore"],
            path: "Tests/StoreCrashChild",
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "GripStoreTests",
            dependencies: ["GripStore", "GripEntitlements", "GripAnalysis", "store-crash-child", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSwift
        ),
        .testTarget(
            name: "GripEntitlementsTests",
            dependencies: [
                "GripEntitlements",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            resources: [.copy("Vectors")],
            swiftSettings: strictSwift
        ),
        // Real HTTP on 127.0.0.1 against an in-process daemon replaying a capture (docs/web.md, "Tests").
        .testTarget(
            name: "GripWebTests",
            dependencies: ["GripWeb", "GripDaemon", "GripStore", "GripConfig", "GripTestSupport",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSwift
        ),
        // Against a throwaway PostgreSQL 15 cluster the suite starts itself (docs/sync.md, "Tests").
        .testTarget(
            name: "GripSyncTests",
            dependencies: ["GripSync", "GripStore", "GripEntitlements", "GripAnalysis", "GripTestSupport",
                           .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSwift
        ),
        // The hub on loopback against a throwaway PostgreSQL 15 cluster, with notifications signed by a test chain;
        // Pis pulling them through their own verifier (docs/account.md, "Tests").
        .testTarget(
            name: "GripHubTests",
            dependencies: ["GripHub", "GripSync", "GripStore", "GripEntitlements", "GripTestSupport",
                           .product(name: "X509", package: "swift-certificates"),
                           .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "SwiftASN1", package: "swift-asn1"),
                           .product(name: "PostgresNIO", package: "postgres-nio"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSwift
        ),
        // Against a throwaway mosquitto broker the suite starts itself, and griptrackd replaying a capture
        // (docs/home-assistant.md, "Tests").
        .testTarget(
            name: "GripMQTTTests",
            dependencies: ["GripMQTT", "GripDaemon", "GripConfig", "GripTestSupport", "griptrackd", "griptrack",
                           .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSwift
        ),
        // The Prometheus exposition of a daemon that replayed a capture, checked by promtool.
        .testTarget(
            name: "GripMetricsTests",
            dependencies: ["GripMetrics", "GripDaemon", "GripTestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSwift
        ),
        // End-to-end tests of the built `griptrack` and `griptrackd` binaries (the test target depends on them so
        // SwiftPM builds them).
        // The configuration file's parser and checks, on text (no executable needed).
        .testTarget(name: "GripConfigTests", dependencies: ["GripConfig", "GripAnalysis"], swiftSettings: strictSwift),
        .testTarget(name: "GripSystemTests", dependencies: ["GripSystem"], swiftSettings: strictSwift),
        .testTarget(
            name: "GripHTTPTests", dependencies: ["GripHTTP", "GripSystem", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strictSwift),
        .testTarget(name: "GripProtocolTests", dependencies: ["GripProtocol", "GripAnalysis"], swiftSettings: strictSwift),
        .testTarget(
            name: "GriptrackCLITests",
            dependencies: ["griptrack", "griptrackd", "GripTestSupport", "GripConfig", "GripDaemon", "GripEntitlements", "GripBlueZ",
                           "GripWire", "GripProtocol",
                           .product(name: "GRDB", package: "GRDB.swift")],
            // Inputs that broke a release build, read from the checkout by path (not bundled).
            exclude: ["Regressions"],
            swiftSettings: strictSwift
        ),
    ]
)

// The sync ingest benchmark (docs/sync.md, "Measured"), only with GRIPTRACK_BENCH_SYNC=1 (`scripts/bench-sync`): an
// executable, so it runs in a release build without the test runner, and the default build never compiles it.
if Context.environment["GRIPTRACK_BENCH_SYNC"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "sync-ingest-bench",
            dependencies: [
                "GripSync", "GripStore", "GripEntitlements", "GripAnalysis", "GripTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/SyncIngestBench",
            swiftSettings: strictSwift))
}

// The libFuzzer harnesses (Fuzz/, one executable per parser; docs/fuzzing.md), only in a GRIPTRACK_FUZZ=1 build:
// they link libFuzzer's driver, which a normal build does not have. lld links them: Debian's gold fails on
// libFuzzer's objects ("internal error in format_file_lineno").
if fuzzing {
    let fuzzLink: [LinkerSetting] = [.unsafeFlags(["-sanitize=fuzzer,address", "-use-ld=lld"])]
    package.targets += [
        .target(name: "FuzzSupport", path: "Fuzz/Support", swiftSettings: strictSwift),
        .executableTarget(
            name: "fuzz-btsnoop", dependencies: ["GripWire", "FuzzSupport"], path: "Fuzz/btsnoop",
            swiftSettings: strictSwift, linkerSettings: fuzzLink),
        .executableTarget(
            name: "fuzz-profiles", dependencies: ["GripWire", "FuzzSupport"], path: "Fuzz/profiles",
            swiftSettings: strictSwift, linkerSettings: fuzzLink),
        .executableTarget(
            name: "fuzz-request", dependencies: ["GripProtocol", "FuzzSupport"], path: "Fuzz/request",
            swiftSettings: strictSwift, linkerSettings: fuzzLink),
        .executableTarget(
            name: "fuzz-config", dependencies: ["GripConfig", "FuzzSupport"], path: "Fuzz/config",
            swiftSettings: strictSwift, linkerSettings: fuzzLink),
        .executableTarget(
            name: "fuzz-jws", dependencies: ["GripEntitlements", "FuzzSupport"], path: "Fuzz/jws",
            swiftSettings: strictSwift, linkerSettings: fuzzLink),
        .executableTarget(
            name: "fuzz-doors", dependencies: ["GripEntitlements", "GripHub", "GripWeb", "FuzzSupport"], path: "Fuzz/doors",
            swiftSettings: strictSwift, linkerSettings: fuzzLink),
        .executableTarget(
            name: "fuzz-monitor", dependencies: ["GripWire", "FuzzSupport"], path: "Fuzz/monitor",
            swiftSettings: strictSwift, linkerSettings: fuzzLink),
        .executableTarget(
            name: "fuzz-import", dependencies: ["GripImport", "GripAnalysis", "FuzzSupport"], path: "Fuzz/import",
            swiftSettings: strictSwift, linkerSettings: fuzzLink),
        .executableTarget(
            name: "fuzz-store",
            dependencies: ["GripStore", "FuzzSupport", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Fuzz/store", swiftSettings: strictSwift, linkerSettings: fuzzLink),
        .executableTarget(
            name: "fuzz-pgreply",
            dependencies: [
                "GripSync", "FuzzSupport", .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Fuzz/pgreply", swiftSettings: strictSwift, linkerSettings: fuzzLink),
    ]
}
