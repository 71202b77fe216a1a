// swift-tools-version:6.2
// griptrack's benchmarks (docs/design.md, the hot path): a separate package so the main package does not depend on
// ordo-one/benchmark. Run with `swift package benchmark` from this directory. One executable target per
// benchmark suite, one file per benchmark group inside it.

import PackageDescription

let package = Package(
    name: "griptrack-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named so the product references below do not depend on the checkout directory's name.
        .package(name: "griptrack", path: ".."),
        // MallocInterposer only: the default RuntimeInterposer trait does not resolve offline and its ARC hooks
        // crash on Swift 6.3 (tried here; see README.md).
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "RingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GripStream", package: "griptrack"),
                .product(name: "GripWire", package: "griptrack"),
                .product(name: "GripBlueZ", package: "griptrack"),
            ],
            path: "Benchmarks/RingBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ReplayBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GripStream", package: "griptrack"),
                .product(name: "GripSimulator", package: "griptrack"),
            ],
            path: "Benchmarks/ReplayBenchmarks",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "GripStore", package: "griptrack"),
                .product(name: "GripAnalysis", package: "griptrack"),
            ],
            path: "Benchmarks/StoreBenchmarks",
            exclude: ["README.md"],
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
