import ArgumentParser
import Foundation
import GripProtocol
import Glibc

extension Griptrack.Web {
    /// `griptrack web pair`: a one-time URL (and its QR code) that signs a browser in.
    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pair",
            abstract: "Print a one-time URL and QR code that pairs a browser with the web app.",
            discussion: """
                Open the URL (or scan the code) on the phone or tablet within 10 minutes; it works once. The \
                browser then keeps a session until `griptrack web revoke NAME`.
                """)

        @OptionGroup var place: WebSocketOption

        @Option(help: ArgumentHelp("What the browser may do: watch, record or admin.", valueName: "role"))
        var role = WebRole.watch

        @Option(help: ArgumentHelp("A name for the browser, for `web tokens` and `web revoke` (default: browser-XXXX).", valueName: "name"))
        var name: String?

        @Option(help: ArgumentHelp(
            "The host name or address the browser reaches this machine by (default: this machine's first network address when the web app listens on all of them).",
            valueName: "host"))
        var host: String?

        @Flag(help: "Print the URL only, without the QR code.")
        var noQR = false

        func run() async throws {
            let reply = try await WebAdmin.ask(.pair(role: role, name: name), socket: place.path)
            guard let code = reply.code else { throw CLIExit.error.fail("griptrackd sent no pairing code") }
            guard let listen = reply.listen else {
                throw CLIExit.error.fail(
                    "griptrackd's web app is off: set [web] listen = \"0.0.0.0:8080\" in griptrack.toml (or start "
                        + "griptrackd with --web), restart it, then pair again")
            }
            // 1.6: "scheme" says whether the web app serves HTTPS ([web] tls_certificate); older daemons serve HTTP.
            let scheme = reply.scheme ?? "http"
            let url = "\(scheme)://\(Self.urlHost(listen: listen, override: host))/pair?code=\(code)"
            let who = reply.name.map { " as \($0)" } ?? ""
            print("Open this on the phone or tablet within 10 minutes (it works once; role \(role.rawValue)\(who)):")
            print(url)
            if !noQR, let drawing = TerminalQRCode.render(url, colored: isatty(STDOUT_FILENO) == 1) {
                print("")
                print(drawing, terminator: "")
            }
        }

        /// `HOST:PORT` for the URL: the given host, or the listen address, or (listening on every address) this
        /// machine's first non-loopback IPv4 address.
        static func urlHost(listen: String, override: String?) -> String {
            let port = listen.split(separator: ":").last.map(String.init) ?? "8080"
            if let override { return override.contains(":") && !override.hasPrefix("[") ? "[\(override)]:\(port)" : "\(override):\(port)" }
            let host = listen.hasPrefix("[") ? String(listen.dropFirst().prefix { $0 != "]" }) : String(listen.split(separator: ":").first ?? "")
            if host != "0.0.0.0" && host != "::" { return listen }
            return "\(firstAddress() ?? "localhost"):\(port)"
        }

        static func firstAddress() -> String? {
            var list: UnsafeMutablePointer<ifaddrs>?
            guard getifaddrs(&list) == 0, let first = list else { return nil }
            defer { freeifaddrs(list) }
            var entry: UnsafeMutablePointer<ifaddrs>? = first
            while let current = entry {
                defer { entry = current.pointee.ifa_next }
                guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                    current.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0, current.pointee.ifa_flags & UInt32(IFF_UP) != 0
                else { continue }
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                let ok = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                    var raw = inet.pointee.sin_addr
                    return inet_ntop(AF_INET, &raw, &text, socklen_t(INET_ADDRSTRLEN)) != nil
                }
                if ok { return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
            }
            return nil
        }
    }
}
