/// Why the web app could not start with TLS: the certificate or key named in `[web]` is not readable PEM.
package struct WebTLSError: Error, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}
