/// Where the web app listens: `[web] listen` or `griptrackd --web`, e.g. `0.0.0.0:8080`, `127.0.0.1:0`, `[::]:8080`.
package struct WebListen: Sendable, Equatable, CustomStringConvertible {
    /// The address to bind, without brackets (`0.0.0.0`, `::1`, a host name).
    package var host: String
    /// The TCP port; 0 lets the system choose (tests).
    package var port: Int

    /// Parses `HOST:PORT` or `[IPv6]:PORT`.
    /// - Returns: nil when the text has no port, a port outside 0–65535 or an empty host.
    package init?(_ text: String) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") { return nil }  // an IPv6 address needs brackets
        }
        guard !hostPart.isEmpty, !hostPart.contains(where: \.isWhitespace), !portPart.isEmpty,
            portPart.allSatisfy(\.isASCII), portPart.allSatisfy(\.isNumber), portPart.count <= 5,
            let port = Int(portPart), (0...65535).contains(port)
        else { return nil }
        host = String(hostPart)
        self.port = port
    }

    /// `HOST:PORT`, with brackets around an IPv6 address.
    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
