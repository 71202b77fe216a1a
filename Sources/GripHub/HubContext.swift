import Hummingbird
import NIOCore

/// The hub's request context: the peer's address (for the rate limit) and the body limit.
struct HubContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    var maxUploadSize: Int { HubSettings.bodyLimit }
}
