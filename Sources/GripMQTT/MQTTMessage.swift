/// One message for the broker.
struct MQTTMessage: Sendable, Equatable {
    var topic: String
    var payload: [UInt8]
    /// Retained messages are states (the broker keeps the last one for new subscribers) and discovery configs.
    var retain: Bool
    /// QoS 1 for what must arrive (discovery, availability, an effort's event), 0 for values a newer one replaces.
    var qos: Int32
    /// A state: a newer message on the same topic replaces one still queued instead of queueing behind it.
    var coalesces: Bool

    init(topic: String, payload: String, retain: Bool, qos: Int32 = 0, coalesces: Bool) {
        self.topic = topic
        self.payload = Array(payload.utf8)
        self.retain = retain
        self.qos = qos
        self.coalesces = coalesces
    }
}
