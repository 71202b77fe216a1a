/// Why the web app could not start with TLS: the certificate or key named in `[web]` is not readable PEM.
public struct WebTLSError: Error, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
