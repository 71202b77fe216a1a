import Foundation
import GripTestSupport
import Testing

/// `make install` / `make uninstall` into a DESTDIR, with stand-in binaries (BIN_DIR) so nothing is rebuilt.
@Suite("make install")
struct MakeInstallTests {
    static let root = CaptureFixtures.repositoryRoot

    static func make(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/make")
        process.arguments = ["-s", "-C", root.path] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("install puts binaries, unit, sysusers file, example config, docs and completions under PREFIX; uninstall removes them",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/make"), "needs make"))
    func installTree() throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("griptrack-make-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let bin = work.appendingPathComponent("bin")
        let stage = work.appendingPathComponent("stage")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        for name in ["griptrack", "griptrackd", "griptrack-hub"] {
            let url = bin.appendingPathComponent(name)
            try Data("#!/bin/sh\necho \(name)\n".utf8).write(to: url)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        }
        let prefix = "/opt/griptrack"
        let common = ["PREFIX=\(prefix)", "DESTDIR=\(stage.path)", "BIN_DIR=\(bin.path)"]
        let installed = try Self.make(["install"] + common)
        #expect(installed.status == 0, "\(installed.output)")

        let tree = stage.appendingPathComponent(String(prefix.dropFirst()))
        let docs = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }
        var expected = ["bin/griptrack", "bin/griptrackd", "lib/systemd/system/griptrack.service",
                        "lib/sysusers.d/griptrack.conf", "share/doc/griptrack/griptrack.toml.example",
                        "share/doc/griptrack/README.md", "share/bash-completion/completions/griptrack",
                        "share/zsh/vendor-completions/_griptrack", "share/fish/vendor_completions.d/griptrack.fish"]
        expected += docs.map { "share/doc/griptrack/\($0)" }
        let files = try FileManager.default.subpathsOfDirectory(atPath: tree.path).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: tree.appendingPathComponent(path).path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
        #expect(files.sorted() == expected.sorted())
        #expect(FileManager.default.isExecutableFile(atPath: tree.appendingPathComponent("bin/griptrackd").path))

        let unit = try String(contentsOf: tree.appendingPathComponent("lib/systemd/system/griptrack.service"), encoding: .utf8)
        let execStart = unit.split(separator: "\n").filter { $0.hasPrefix("ExecStart=") }
        #expect(execStart == ["ExecStart=/opt/griptrack/bin/griptrackd --config /etc/griptrack/griptrack.toml"])
        let source = try String(contentsOf: Self.root.appendingPathComponent("systemd/griptrack.service"), encoding: .utf8)
        #expect(unit.replacingOccurrences(of: "/opt/griptrack/bin/griptrackd", with: "/usr/local/bin/griptrackd") == source)
        let sysusers = try Data(contentsOf: tree.appendingPathComponent("lib/sysusers.d/griptrack.conf"))
        #expect(sysusers == (try Data(contentsOf: Self.root.appendingPathComponent("systemd/griptrack.sysusers"))))

        // The completions are what the binary prints (the stand-in prints its name).
        let bash = try String(contentsOf: tree.appendingPathComponent("share/bash-completion/completions/griptrack"), encoding: .utf8)
        #expect(bash == "griptrack\n")

        // The hub's own targets: its binary, unit and sysusers file, nothing of the Pi's.
        let hub = try Self.make(["install-hub"] + common)
        #expect(hub.status == 0, "\(hub.output)")
        let hubUnit = try String(contentsOf: tree.appendingPathComponent("lib/systemd/system/griptrack-hub.service"), encoding: .utf8)
        #expect(hubUnit.split(separator: "\n").filter { $0.hasPrefix("ExecStart=") }
            == ["ExecStart=/opt/griptrack/bin/griptrack-hub --config /etc/griptrack/griptrack.toml"])
        let hubUsers = try Data(contentsOf: tree.appendingPathComponent("lib/sysusers.d/griptrack-hub.conf"))
        #expect(hubUsers == (try Data(contentsOf: Self.root.appendingPathComponent("systemd/griptrack-hub.sysusers"))))
        let unhub = try Self.make(["uninstall-hub"] + common)
        #expect(unhub.status == 0, "\(unhub.output)")

        let removed = try Self.make(["uninstall"] + common)
        #expect(removed.status == 0, "\(removed.output)")
        let left = try FileManager.default.subpathsOfDirectory(atPath: tree.path).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: tree.appendingPathComponent(path).path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }
        #expect(left.isEmpty)
    }
}
