/// Home Assistant's MQTT discovery for one griptrack device: the retained config messages
/// (`<prefix>/<component>/<node_id>/<object_id>/config`) and the state topics they point at
/// (docs/home-assistant.md has the list).
///
/// Every entity has a stable `unique_id` (`griptrack_<node_id>_<object_id>`), the same `device` block (so Home
/// Assistant groups them into one device) and availability through `<base>/availability`, which the broker sets to
/// `offline` by the last will when griptrackd dies or loses the broker.
struct HomeAssistantDiscovery: Sendable {
    let settings: MQTTSettings
    /// griptrack's release (the device's `sw_version`).
    let release: String
    /// The device profile's name (the device's `model`), e.g. "Tindeq Progressor".
    let model: String

    /// A state topic under the base topic.
    enum Topic: String, CaseIterable, Sendable {
        case availability, connected, battery, force, effort, recordings, plan, recording
        case effortEvent = "effort/event"
        case tareCommand = "tare/set"
        case recordingCommand = "recording/set"
    }

    func topic(_ topic: Topic) -> String { settings.baseTopic + "/" + topic.rawValue }

    /// One discovery entity.
    struct Entity: Sendable {
        var component: String
        var objectID: String
        var fields: [(String, JSONText)]
        /// Offered only with `allow_commands`.
        var isCommand = false
    }

    var uniquePrefix: String { "griptrack_\(settings.nodeID)" }

    func configTopic(_ entity: Entity) -> String {
        "\(settings.discoveryPrefix)/\(entity.component)/\(settings.nodeID)/\(entity.objectID)/config"
    }

    /// The config message's JSON.
    func payload(_ entity: Entity) -> String {
        var fields: [(String, JSONText)] = [
            ("name", entity.fields.first { $0.0 == "name" }?.1 ?? .string(entity.objectID)),
            ("unique_id", .string("\(uniquePrefix)_\(entity.objectID)")),
        ]
        fields += entity.fields.filter { $0.0 != "name" }
        fields += [
            ("availability", .array([.object([
                ("topic", .string(topic(.availability))), ("payload_available", .string("online")),
                ("payload_not_available", .string("offline")),
            ])])),
            ("device", .object([
                ("identifiers", .array([.string(uniquePrefix)])),
                ("name", .string("griptrack \(settings.deviceName)")),
                ("manufacturer", .string("griptrack")),
                ("model", .string(model)),
                ("sw_version", .string(release)),
            ])),
            ("origin", .object([("name", .string("griptrack")), ("sw_version", .string(release))])),
        ]
        return JSONText.object(fields).rendered
    }

    /// Every entity griptrack offers, commands included (``Entity/isCommand``).
    var entities: [Entity] {
        let kilograms: [(String, JSONText)] = [
            ("unit_of_measurement", .string("kg")), ("device_class", .string("weight")),
            ("state_class", .string("measurement")), ("suggested_display_precision", .integer(1)),
        ]
        return [
            Entity(component: "binary_sensor", objectID: "connected", fields: [
                ("name", .string("Connected")), ("state_topic", .string(topic(.connected))),
                ("payload_on", .string("ON")), ("payload_off", .string("OFF")),
                ("device_class", .string("connectivity")), ("entity_category", .string("diagnostic")),
            ]),
            Entity(component: "sensor", objectID: "battery", fields: [
                ("name", .string("Battery")), ("state_topic", .string(topic(.battery))),
                ("unit_of_measurement", .string("V")), ("device_class", .string("voltage")),
                ("state_class", .string("measurement")), ("suggested_display_precision", .integer(2)),
                ("entity_category", .string("diagnostic")),
            ]),
            Entity(component: "sensor", objectID: "force", fields: [
                ("name", .string("Force")), ("state_topic", .string(topic(.force))), ("icon", .string("mdi:arm-flex")),
            ] + kilograms),
            Entity(component: "sensor", objectID: "last_peak", fields: [
                ("name", .string("Last effort peak")), ("state_topic", .string(topic(.effort))),
                ("value_template", .string("{{ value_json.peak_kg }}")),
                ("json_attributes_topic", .string(topic(.effort))),
            ] + kilograms),
            Entity(component: "sensor", objectID: "last_mean", fields: [
                ("name", .string("Last effort mean")), ("state_topic", .string(topic(.effort))),
                ("value_template", .string("{{ value_json.mean_kg }}")),
            ] + kilograms),
            Entity(component: "sensor", objectID: "last_duration", fields: [
                ("name", .string("Last effort duration")), ("state_topic", .string(topic(.effort))),
                ("value_template", .string("{{ value_json.duration_s }}")),
                ("unit_of_measurement", .string("s")), ("device_class", .string("duration")),
                ("state_class", .string("measurement")), ("suggested_display_precision", .integer(1)),
            ]),
            Entity(component: "sensor", objectID: "last_rfd", fields: [
                ("name", .string("Last effort RFD")), ("state_topic", .string(topic(.effort))),
                ("value_template", .string("{{ value_json.rfd_kg_s if value_json.rfd_kg_s is defined else none }}")),
                ("unit_of_measurement", .string("kg/s")), ("state_class", .string("measurement")),
                ("suggested_display_precision", .integer(0)), ("icon", .string("mdi:trending-up")),
            ]),
            Entity(component: "sensor", objectID: "recordings", fields: [
                ("name", .string("Recordings stored")), ("state_topic", .string(topic(.recordings))),
                ("value_template", .string("{{ value_json.stored }}")),
                ("json_attributes_topic", .string(topic(.recordings))),
                ("state_class", .string("measurement")), ("icon", .string("mdi:database")),
            ]),
            Entity(component: "sensor", objectID: "plan", fields: [
                ("name", .string("Plan")), ("state_topic", .string(topic(.plan))),
                ("device_class", .string("enum")), ("options", .array([.string("free"), .string("pro")])),
                ("entity_category", .string("diagnostic")), ("icon", .string("mdi:card-account-details")),
            ]),
            Entity(component: "event", objectID: "effort", fields: [
                ("name", .string("Effort")), ("state_topic", .string(topic(.effortEvent))),
                ("event_types", .array([.string("effort")])), ("icon", .string("mdi:arm-flex")),
            ]),
            Entity(component: "button", objectID: "tare", fields: [
                ("name", .string("Tare")), ("command_topic", .string(topic(.tareCommand))),
                ("payload_press", .string("PRESS")), ("icon", .string("mdi:scale-balance")),
            ], isCommand: true),
            Entity(component: "switch", objectID: "recording", fields: [
                ("name", .string("Recording")), ("command_topic", .string(topic(.recordingCommand))),
                ("state_topic", .string(topic(.recording))), ("payload_on", .string("ON")),
                ("payload_off", .string("OFF")), ("icon", .string("mdi:record-rec")),
            ], isCommand: true),
        ]
    }

    /// The retained config messages for a new session: each entity's config, and an empty retained payload for the
    /// command entities when commands are off (Home Assistant then removes a button or switch an earlier
    /// configuration offered).
    func configMessages() -> [MQTTMessage] {
        entities.map { entity in
            let offered = !entity.isCommand || settings.allowCommands
            return MQTTMessage(
                topic: configTopic(entity), payload: offered ? payload(entity) : "", retain: true, qos: 1,
                coalesces: true)
        }
    }
}
