import GripConfig
import GripHTTP
import NIOCore

/// What the web app needs to start: where it listens, who may watch without pairing, and the daemon's socket.
package struct WebSettings: Sendable {
    /// The largest request body accepted (a RECORD's hand and label fit many times over); larger gets 413.
    package static let bodyLimit = 16 * 1024
    /// Refused pairing codes one address may send per minute; past that every code from it gets 429 until the
    /// minute has passed. Only refusals count, so the people behind one address (a gym's Wi-Fi, a proxy) who pair
    /// with the codes they were given never use up each other's minute. A code is 8 of 31 symbols, pending for
    /// 10 minutes, and at most 16 are pending: 200 guesses from one address over a code's life find one with a
    /// chance of about 4 in a billion.
    package static let pairingRefusalsPerMinute = 20
    /// Live lines waiting for one browser at most; a browser further behind is disconnected (its page reconnects
    /// and starts again from the present), so a stalled browser never holds more than this.
    package static let eventBacklogLines = 512
    /// How often every event stream gets a comment frame while no line flows, so that a closed stream is noticed
    /// (its write fails) within two beats even when the device is idle.
    package static let eventHeartbeat = TimeAmount.seconds(10)
    /// The web door's bounds: a board's screen, a few phones and a coach's laptop each open up to 6 connections
    /// (a browser's per-host limit), and each event stream holds one; 128 serves twenty such browsers and stays
    /// far inside griptrackd's descriptors (`LimitNOFILE` in the unit), so a flood of connections can never starve
    /// the daemon's own socket, its database or BlueZ. An idle or stalled connection goes after 20 s.
    package static let doorLimits = DoorLimits(maxConnections: 128, idleTimeout: .seconds(20), bodyLimit: bodyLimit)
    /// The most daemon requests the web app has open at once (``DaemonLink``); more wait briefly, then get 503
    /// "busy, retry" rather than a connection of their own that the daemon would refuse past its client limit.
    package static let daemonRequestSlots = 8

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
    /// The door's bounds (``doorLimits`` unless a test wants them reached sooner).
    package var doorLimits = WebSettings.doorLimits
    /// The event streams' heartbeat (``eventHeartbeat`` unless a test wants a closed stream noticed sooner).
    package var eventHeartbeat = WebSettings.eventHeartbeat

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
