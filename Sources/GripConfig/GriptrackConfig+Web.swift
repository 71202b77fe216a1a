import Foundation
import Glibc

extension GriptrackConfig {
    /// The `[web]` certificate and key, resolved against the configuration file's directory; nil: plain HTTP.
    package var webTLSFiles: (certificate: String, key: String)? {
        guard let certificate = web.tlsCertificate, let key = web.tlsKey else { return nil }
        return (resolve(certificate), resolve(key))
    }

    /// Refuses half a TLS setting, an unreadable file, or a private key others may read, at load time (exit 5, with
    /// the key's line): a web app that would fall back to plain HTTP, or fail only once griptrackd is running.
    func checkWebFiles(lines: KeyLines) throws(ConfigError) {
        let file = path ?? "(defaults)"
        switch (web.tlsCertificate, web.tlsKey) {
        case (nil, nil):
            return
        case (_?, nil):
            throw ConfigError(
                file: file, line: lines.line(section: "web", key: "tls_certificate"), key: "web.tls_certificate",
                problem: "a certificate needs its private key; set [web] tls_key too")
        case (nil, _?):
            throw ConfigError(
                file: file, line: lines.line(section: "web", key: "tls_key"), key: "web.tls_key",
                problem: "a private key needs its certificate; set [web] tls_certificate too")
        case (let certificate?, let key?):
            for (name, path) in [("tls_certificate", resolve(certificate)), ("tls_key", resolve(key))]
            where !FileManager.default.isReadableFile(atPath: path) {
                throw ConfigError(
                    file: file, line: lines.line(section: "web", key: name), key: "web." + name,
                    problem: "\(path) does not exist or cannot be read")
            }
            var info = stat()
            let keyPath = resolve(key)
            if stat(keyPath, &info) == 0, info.st_mode & 0o077 != 0 {
                throw ConfigError(
                    file: file, line: lines.line(section: "web", key: "tls_key"), key: "web.tls_key",
                    problem: "\(keyPath) is readable by its group or by others (mode "
                        + "\(String(info.st_mode & 0o777, radix: 8))); make it private with `chmod 600 \(keyPath)`")
            }
        }
    }
}
