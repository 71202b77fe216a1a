// Fuzz/ holds griptrack's libFuzzer harnesses, one executable per parser (docs/fuzzing.md). They exist because every
// parser here reads bytes somebody else wrote (captures, a BLE device, socket clients, a config file, App Store
// signed data, a database file) and must answer any input with a value or an error, never a trap.
//
// This module is the glue they share. Why SwiftPM rather than plain `swiftc`: three of the parsers sit on top of
// GRDB, TOMLKit and swift-certificates, which SwiftPM already knows how to build; `scripts/fuzz` builds every harness
// in release, in `.build-fuzz`, with GRIPTRACK_FUZZ=1 (Package.swift then instruments griptrack's modules only).
// SwiftPM gives every executable a `main` of its own, so the harnesses do not define `LLVMFuzzerTestOneInput` and
// rely on libFuzzer's `main`: they call `LLVMFuzzerRunDriver`, libFuzzer's entry point for programs that keep their
// own `main`.

import Glibc

@_silgen_name("LLVMFuzzerRunDriver")
private func runLibFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer with this process's arguments (`-max_total_time=…`, corpus folders) and exits with its status.
///
/// - Parameter testOneInput: Called once per input, on the main thread; returns 0. It must not capture anything:
///   libFuzzer calls it through a C function pointer.
public func fuzzMain(_ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(runLibFuzzerDriver(&argc, &argv, testOneInput))
}

/// The input libFuzzer passed, as a buffer (`data` is nil for the empty input).
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: size == 0 ? nil : data, count: size)
}

/// Reports a broken invariant (not a parser error: a parser that answers wrongly) and stops, so libFuzzer keeps the
/// input as a crash.
public func fuzzFailure(_ message: String, file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError("fuzz invariant: \(message)", file: file, line: line)
}
