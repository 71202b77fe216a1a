import Foundation
import GripConfig
import GripTestSupport
import Testing

@testable import GripWeb

/// HTTPS with `[web] tls_certificate` and `tls_key`: a real certificate made by openssl, a real TLS client (curl)
/// that verifies it against that certificate, and plain HTTP refused on the same port.
@Suite("Web app over TLS", .serialized)
struct WebTLSTests {
    /// Runs a command; its exit status and standard output.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func certificate(in directory: String) throws -> WebSettings.TLSFiles {
        let made = try SelfSignedCertificate(in: directory, name: "web")
        return WebSettings.TLSFiles(certificatePath: made.certificatePath, keyPath: made.keyPath)
    }

    @Test("HTTPS answers a client that verifies the configured certificate; plain HTTP on the port gets nothing")
    func servesTLS() async throws {
        let directory = NSTemporaryDirectory() + "gt-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = try Self.certificate(in: directory)
        let web = try await WebHarness(tls: files)
        let token = try await web.token("watch", name: "scraper")
        let url = "https://127.0.0.1:\(web.port)/api/status"

        // curl checks the chain against the certificate itself (not --insecure), so this is the configured one.
        let verified = try Self.run([
            "curl", "--silent", "--show-error", "--cacert", files.certificatePath, "--max-time", "10",
            "--header", "Authorization: Bearer \(token)", url,
        ])
        #expect(verified.status == 0)
        #expect(verified.output.hasPrefix(#"{"class":"STATUS""#))
        // Without credentials over TLS: the same 401 as over HTTP.
        let anonymous = try Self.run([
            "curl", "--silent", "--cacert", files.certificatePath, "--max-time", "10", "--output", "/dev/null",
            "--write-out", "%{http_code}", url,
        ])
        #expect(anonymous.output == "401")
        // Plain HTTP to the TLS port: no HTTP answer at all, never the API in clear text.
        let plain = try Self.run([
            "curl", "--silent", "--max-time", "5", "--output", "/dev/null", "--write-out", "%{http_code}",
            "--header", "Authorization: Bearer \(token)", "http://127.0.0.1:\(web.port)/api/status",
        ])
        #expect(plain.output == "000")
        // The pairing reply tells `griptrack web pair` to print an https:// URL.
        let pairing = try await web.admin(#"{"class":"WEB","action":"pair"}"#)
        #expect(pairing["scheme"] as? String == "https")
        try await web.stop()
    }

    @Test("a certificate file that is not PEM stops the web app with a message naming it")
    func unreadableCertificate() throws {
        let directory = NSTemporaryDirectory() + "gt-tls-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var files = try Self.certificate(in: directory)
        files.certificatePath = directory + "/web.key.txt"
        try "not a certificate\n".write(toFile: files.certificatePath, atomically: true, encoding: .utf8)
        #expect {
            _ = try WebServer.serverBuilder(tls: files, limits: WebSettings.doorLimits)
        } throws: { error in
            "\(error)".hasPrefix("cannot read the certificate \(files.certificatePath) as PEM")
        }
    }
}
