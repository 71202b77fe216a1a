@testable import GripMQTT
import Logging
import Testing

/// The bounded queue in front of libmosquitto (no broker needed: nothing is pumped).
@Suite("MQTT outgoing queue")
struct OutgoingQueueTests {
    static func connection() -> MQTTConnection {
        MQTTConnection(
            settings: MQTTSettings(host: "127.0.0.1", port: 1, deviceName: "queue"), logger: Logger(label: "test"),
            wake: {}, received: { _, _, _ in })
    }

    static func event(_ index: Int) -> MQTTMessage {
        MQTTMessage(topic: "griptrack/queue/effort/event", payload: "\(index)", retain: false, qos: 1, coalesces: false)
    }

    @Test("a full queue drops new messages and counts them, never blocking")
    func fullQueueDropsAndCounts() {
        let connection = Self.connection()
        for index in 0..<MQTTConnection.capacity { #expect(connection.offer(Self.event(index))) }
        #expect(!connection.offer(Self.event(-1)))
        #expect(!connection.offer(Self.event(-2)))
        #expect(connection.counters.dropped == 2)
        #expect(connection.counters.queued == MQTTConnection.capacity)
    }

    @Test("a newer state replaces its queued value instead of queueing behind it")
    func statesCoalesce() {
        let connection = Self.connection()
        for value in 0..<1000 {
            connection.offer(MQTTMessage(topic: "griptrack/queue/force", payload: "\(value)", retain: false, coalesces: true))
        }
        #expect(connection.counters.queued == 1)
        #expect(connection.counters.superseded == 999)
        #expect(connection.counters.dropped == 0)
    }

    @Test("a new session's online goes first, even into a full queue")
    func onlineGoesFirst() {
        let connection = Self.connection()
        for index in 0..<MQTTConnection.capacity { connection.offer(Self.event(index)) }
        let online = MQTTMessage(topic: "griptrack/queue/availability", payload: "online", retain: true, qos: 1, coalesces: true)
        #expect(connection.offer(online, first: true))
        #expect(connection.counters.queued == MQTTConnection.capacity)
        #expect(connection.counters.dropped == 1)
    }

    @Test("the node id keeps letters, digits, _ and -, and the defaults derive from it")
    func nodeIDAndDefaults() {
        #expect(MQTTSettings.nodeID("Gym board #2/left") == "Gym_board__2_left")
        let settings = MQTTSettings(host: "h", port: 1883, deviceName: "gym-board-2")
        #expect(settings.baseTopic == "griptrack/gym-board-2")
        #expect(settings.clientID == "griptrack-gym-board-2")
        #expect(settings.discoveryPrefix == "homeassistant")
    }

    @Test("the newest force of a SAMPLES line is read from its text")
    func lastForceOfSamplesLine() {
        let line = #"{"class":"SAMPLES","t":[3.474769,3.48727],"kg":[22.39263,22.36001]}"#
        #expect(SamplesLine.lastForce(in: Array(line.utf8)) == Float("22.36001"))
        #expect(SamplesLine.lastForce(in: Array(#"{"class":"SAMPLES","t":[1],"kg":[-0.5]}"#.utf8)) == -0.5)
        #expect(SamplesLine.lastForce(in: Array(#"{"class":"SAMPLES","t":[],"kg":[]}"#.utf8)) == nil)
    }
}
