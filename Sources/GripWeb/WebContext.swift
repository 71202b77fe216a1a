import Hummingbird
import NIOCore

/// The request context: Hummingbird's core, the peer's address (pairing's rate limit) and the HTTP connection (an
/// event stream closes it when its browser has fallen too far behind).
struct WebContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
        channel = source.channel
    }

    /// Bodies are read by the handlers themselves, up to ``WebSettings/bodyLimit``.
    var maxUploadSize: Int { WebSettings.bodyLimit }
}
