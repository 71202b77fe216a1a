/// Watches the first bytes a server sends on a `sslmode=prefer` connection and says when it must be cut: the
/// server declined TLS (answered `N` to the SSLRequest) and then asked for the password in cleartext
/// (AuthenticationCleartextPassword). postgres-nio would answer that with the password itself; over an unencrypted
/// link that hands it to whoever is on the path, which is exactly what a man in the middle who strips TLS wants.
///
/// A pure state machine over the byte stream (fed in whatever pieces the socket delivers): it tracks the
/// one-byte TLS answer, then the plain protocol's messages (a type byte, a big-endian Int32 length that counts
/// itself, the body) until authentication succeeds; from then on, or once TLS was accepted, it only passes bytes.
struct CleartextPasswordWatch: Sendable, Equatable {
    enum Verdict: Sendable, Equatable {
        /// Let the bytes through.
        case pass
        /// Close the connection before postgres-nio sees these bytes: it would send the password.
        case refuse
    }

    private enum Phase: Sendable, Equatable {
        /// The SSLRequest is out; the next byte is the server's answer.
        case tlsAnswer
        /// Plain text, before authentication: reading message headers.
        case plain
        /// TLS accepted, authentication done, or bytes that are not the protocol (postgres-nio reports those).
        case passThrough
    }

    private var phase = Phase.tlsAnswer
    /// The current message's first bytes: type, length, and for `R` the authentication code.
    private var header: [UInt8] = []
    /// Body bytes of the current message still to skip.
    private var skip = 0

    /// Whether the server accepted TLS (`S`).
    private(set) var tls = false

    /// Feeds the next bytes the server sent.
    ///
    /// - Parameter bytes: Any number of bytes, in order.
    /// - Returns: ``Verdict/refuse`` once the server asked for a cleartext password without TLS.
    mutating func feed(_ bytes: some Collection<UInt8>) -> Verdict {
        var index = bytes.startIndex
        while index != bytes.endIndex {
            switch phase {
            case .passThrough:
                return .pass
            case .tlsAnswer:
                tls = bytes[index] == UInt8(ascii: "S")
                phase = bytes[index] == UInt8(ascii: "N") ? .plain : .passThrough
                index = bytes.index(after: index)
            case .plain:
                if skip > 0 {
                    let available = bytes.distance(from: index, to: bytes.endIndex)
                    let step = min(skip, available)
                    skip -= step
                    index = bytes.index(index, offsetBy: step)
                    continue
                }
                header.append(bytes[index])
                index = bytes.index(after: index)
                if let verdict = readHeader() { return verdict }
            }
        }
        return .pass
    }

    /// Acts on the header once enough of it is in; returns a verdict when the connection must be cut.
    private mutating func readHeader() -> Verdict? {
        guard header.count >= 5 else { return nil }
        let length = header[1...4].reduce(0) { $0 << 8 | Int($1) }
        let isAuthentication = header[0] == UInt8(ascii: "R")
        guard length >= (isAuthentication ? 8 : 4) else {
            // Not the protocol: postgres-nio's decoder fails on it.
            phase = .passThrough
            return nil
        }
        if !isAuthentication {
            skip = length - 4
            header = []
            return nil
        }
        guard header.count >= 9 else { return nil }
        let code = header[5...8].reduce(0) { $0 << 8 | Int($1) }
        switch code {
        case 3:  // AuthenticationCleartextPassword
            return .refuse
        case 0:  // AuthenticationOk: nothing more to watch
            phase = .passThrough
        default:  // MD5, SASL and its continuations: they never carry the password itself
            skip = length - 8
            header = []
        }
        return nil
    }
}
