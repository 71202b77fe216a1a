import GripConfig

/// What the web app needs to start: where it listens, who may watch without pairing, and the daemon's socket.
package struct WebSettings: Sendable {
    /// The largest request body accepted (a RECORD's hand and label fit many times over); larger gets 413.
    package static let bodyLimit = 16 * 1024
    /// Pairing attempts one address may make per minute; more get 429.
    package static let pairingAttemptsPerMinute = 5
    /// Live lines waiting for one browser at most; a browser further behind is disconnected (its page reconnects
    /// and starts again from the present), so a stalled browser never holds more than this.
    package static let eventBacklogLines = 512

    /// The address and port to listen on.
    package var listen: WebListen
    /// What a visitor without credentials may do.
    package var anonymous: GriptrackConfig.Web.Anonymous
    /// The daemon's Unix socket, which the web app is a client of.
    package var socketPath: String
    /// `[web] tls_certificate` and `tls_key` (PEM files): the web app then speaks HTTPS only; nil: plain HTTP.
    package var tls: TLSFiles?
    /// `[protocols]` of the configuration: the training screen's chooser offers them after the built-ins.
    package var protocols: [GriptrackConfig.NamedProtocol] = []

    /// A certificate chain and its private key, as PEM files.
    package struct TLSFiles: Sendable, Equatable {
        package var certificatePath: String
        package var keyPath: String

        package init(certificatePath: String, keyPath: String) {
            self.certificatePath = certificatePath
            self.keyPath = keyPath
        }
    }
    /// The kernel's send buffer for an event stream's connection (SO_SNDBUF), which ``eventSendBufferBytes`` sets
    /// per server: without it, Linux grows a stalled connection's buffer to megabytes (on loopback, to several
    /// times the 64 KiB segment size) before the web app can notice that its browser has stopped reading.
    package static let eventSendBufferBytes = 64 * 1024

    /// SO_SNDBUF for event streams (``eventSendBufferBytes`` unless a test wants a browser dropped sooner).
    package var eventSendBufferBytes = WebSettings.eventSendBufferBytes
    /// Live lines one browser may have waiting (``eventBacklogLines`` unless a test wants a browser dropped sooner).
    package var eventBacklogLines = WebSettings.eventBacklogLines

    /// Creates settings.
    /// - Parameters:
    ///   - listen: `[web] listen` or `griptrackd --web`.
    ///   - anonymous: `[web] anonymous`.
    ///   - socketPath: the daemon's socket.
    ///   - tls: `[web] tls_certificate` and `tls_key`, for HTTPS.
    package init(
        listen: WebListen, anonymous: GriptrackConfig.Web.Anonymous = .none, socketPath: String, tls: TLSFiles? = nil
    ) {
        self.listen = listen
        self.anonymous = anonymous
        self.socketPath = socketPath
        self.tls = tls
    }
}
