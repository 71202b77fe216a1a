import GripMQTT
import GripSystem
import ServiceLifecycle

/// The MQTT bridge (`GripMQTT`) as a service on its own thread, `gt-mqtt`.
///
/// Last in the group before the signal watcher, so it shuts down first: it says `offline` and disconnects while
/// the socket it watches is still open. A bridge that cannot start (libmosquitto refuses a setting, logged) leaves
/// the daemon running without MQTT: the service then waits for the group's shutdown instead of ending it.
final class MQTTService: Service, CustomStringConvertible {
    let bridge: MQTTBridge

    var description: String { "MQTTService" }

    init(bridge: MQTTBridge) {
        self.bridge = bridge
    }

    func run() async throws {
        await withGracefulShutdownHandler {
            await NamedThread.run(name: "gt-mqtt") { [bridge] in bridge.run() }
        } onGracefulShutdown: { [bridge] in
            bridge.stop()
        }
        try? await gracefulShutdown()
    }
}
