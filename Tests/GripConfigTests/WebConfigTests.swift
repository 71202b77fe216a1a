import Foundation
import GripConfig
import Testing

/// `[web]`'s TLS keys (docs/config.md): both or neither, readable, the key private; paths relative to the file.
@Suite("[web] TLS configuration")
struct WebConfigTests {
    static func load(_ text: String, in directory: URL) throws(ConfigError) -> GriptrackConfig {
        let file = directory.appendingPathComponent("griptrack.toml").path
        try? text.write(toFile: file, atomically: true, encoding: .utf8)
        return try GriptrackConfig.load(path: file, required: true)
    }

    @Test("half a TLS setting, a missing file or a key others may read is refused with the key's line")
    func tlsFilesAreChecked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gt-web-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "certificate\n".write(to: directory.appendingPathComponent("web.crt"), atomically: true, encoding: .utf8)
        try "key\n".write(to: directory.appendingPathComponent("web.key"), atomically: true, encoding: .utf8)
        chmod(directory.appendingPathComponent("web.key").path, 0o644)

        let cases: [(text: String, line: Int, key: String, problem: String)] = [
            ("[web]\ntls_certificate = \"web.crt\"\n", 2, "web.tls_certificate", "set [web] tls_key too"),
            ("[web]\n\ntls_key = \"web.key\"\n", 3, "web.tls_key", "set [web] tls_certificate too"),
            ("[web]\ntls_certificate = \"missing.crt\"\ntls_key = \"web.key\"\n", 2, "web.tls_certificate", "does not exist"),
            ("[web]\ntls_certificate = \"web.crt\"\ntls_key = \"web.key\"\n", 3, "web.tls_key", "chmod 600"),
        ]
        for (text, line, key, problem) in cases {
            do {
                _ = try Self.load(text, in: directory)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.line == line, "\(error)")
                #expect(error.key == key, "\(error)")
                #expect(error.problem.contains(problem), "\(error)")
            }
        }
        chmod(directory.appendingPathComponent("web.key").path, 0o600)
        let config = try Self.load("[web]\ntls_certificate = \"web.crt\"\ntls_key = \"web.key\"\n", in: directory)
        #expect(config.webTLSFiles?.certificate == directory.appendingPathComponent("web.crt").path)
        #expect(config.webTLSFiles?.key == directory.appendingPathComponent("web.key").path)
        #expect(try Self.load("[web]\nlisten = \"0.0.0.0:8080\"\n", in: directory).webTLSFiles == nil)
    }
}
