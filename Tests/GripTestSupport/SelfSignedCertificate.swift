import Foundation

/// A self-signed certificate and its key for the TLS tests (the web app's HTTPS, the MQTT bridge's mqtts), made by
/// Debian's openssl: valid for `localhost` and `127.0.0.1`, two days long.
public struct SelfSignedCertificate: Sendable {
    /// PEM files.
    public let certificatePath: String
    public let keyPath: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Writes `NAME.crt` and `NAME.key` (mode 600) into `directory`.
    public init(in directory: String, name: String = "test") throws {
        certificatePath = directory + "/\(name).crt"
        keyPath = directory + "/\(name).key"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", keyPath, "-out", certificatePath, "-days", "2", "-subj", "/CN=griptrack \(name)",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "openssl could not make a certificate (exit \(process.terminationStatus)); run scripts/setup")
        }
        chmod(keyPath, 0o600)
    }
}
