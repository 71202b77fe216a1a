import Foundation
import GripTestSupport
import Testing

/// griptrackd replaying captures with `[mqtt]` set, against a real mosquitto broker the suite starts itself
/// (docs/home-assistant.md, "Tests"). Serialized: each test has its own broker and daemon, and the machine's two
/// cores are better spent on one replay at a time.
@Suite("MQTT bridge against mosquitto", .serialized, .timeLimit(.minutes(3)), .enabled(if: MosquittoBroker.installed || ProcessInfo.processInfo.environment["CI"] != nil))
struct MQTTBridgeTests {
    static let base = "griptrack/test-board"
    static let capture = "progressor-max-pulls.btsnoop"

    /// The keys Home Assistant documents for each MQTT platform griptrack uses (its MQTT integration's pages for
    /// binary_sensor, sensor, event, button and switch), plus the shared entity keys.
    static let documentedKeys: [String: Set<String>] = {
        let shared: Set<String> = [
            "name", "unique_id", "availability", "device", "origin", "icon", "entity_category",
            "json_attributes_topic", "value_template",
        ]
        return [
            "binary_sensor": shared.union(["state_topic", "payload_on", "payload_off", "device_class"]),
            "sensor": shared.union([
                "state_topic", "unit_of_measurement", "device_class", "state_class", "suggested_display_precision",
                "options",
            ]),
            "event": shared.union(["state_topic", "event_types", "device_class"]),
            "button": shared.union(["command_topic", "payload_press", "device_class"]),
            "switch": shared.union(["state_topic", "command_topic", "payload_on", "payload_off", "device_class"]),
        ]
    }()

    /// The peaks of the capture's complete efforts, from its golden file (float32, as the device sent them).
    static func expectedPeaks(_ capture: String) throws -> [Float] {
        let url = CaptureFixtures.url(capture.replacingOccurrences(of: ".btsnoop", with: ".expected.json"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        let recordings = json?["recordings"] as? [[String: Any]] ?? []
        return recordings.flatMap { ($0["efforts"] as? [[String: Any]]) ?? [] }
            .filter { ($0["open"] as? Bool) != true }
            .compactMap { ($0["peak_kg"] as? Double).map(Float.init) }
    }

    static func object(_ payload: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) as? [String: Any]
    }

    @Test("a replay publishes retained discovery, force at most twice a second and one event per effort")
    func replayPublishesDiscoveryForceAndEvents() async throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, directory: broker.directory)
        try await Task.sleep(for: .milliseconds(300))
        let daemon = try ReplayingDaemon(
            capture: Self.capture, speed: 8, mqtt: "url = \"mqtt://127.0.0.1:\(broker.port)\"",
            directory: broker.directory)
        let peaks = try Self.expectedPeaks(Self.capture)
        #expect(peaks.count == 3)
        let ended = await waitUntil(seconds: 60) {
            daemon.log.contains("Pipeline ended") && subscriber.messages(on: Self.base + "/effort/event").count >= peaks.count
        }
        #expect(ended, "\(daemon.log)")

        // Discovery: retained, valid JSON, unique ids, one device block, only documented keys, no commands.
        let configs = try Subscriber.retained(port: broker.port, filter: "homeassistant/#")
        #expect(configs.count == 10, "\(configs.map(\.topic))")
        var uniqueIDs: Set<String> = []
        var devices: Set<String> = []
        for config in configs {
            #expect(config.retained)
            let levels = config.topic.split(separator: "/")
            #expect(levels.count == 5 && levels[2] == "test-board" && levels[4] == "config", "\(config.topic)")
            guard levels.count == 5, let payload = Self.object(config.payload) else {
                Issue.record("not a JSON object on \(config.topic): \(config.payload)")
                continue
            }
            let component = String(levels[1])
            #expect(!["button", "switch"].contains(component), "a command entity without allow_commands")
            let unknown = Set(payload.keys).subtracting(Self.documentedKeys[component] ?? [])
            #expect(unknown.isEmpty, "\(config.topic): keys Home Assistant does not document: \(unknown)")
            let uniqueID = payload["unique_id"] as? String ?? ""
            #expect(uniqueID == "griptrack_test-board_\(levels[3])")
            uniqueIDs.insert(uniqueID)
            let device = try JSONSerialization.data(withJSONObject: payload["device"] ?? [:], options: .sortedKeys)
            devices.insert(String(decoding: device, as: UTF8.self))
            let availability = (payload["availability"] as? [[String: Any]])?.first?["topic"] as? String
            #expect(availability == Self.base + "/availability")
        }
        #expect(uniqueIDs.count == configs.count)
        #expect(devices.count == 1, "\(devices)")
        #expect(devices.first?.contains("\"model\":\"Tindeq Progressor\"") == true)

        // One event per complete effort, its peak the capture's float32 exactly.
        let events = subscriber.messages(on: Self.base + "/effort/event")
        #expect(events.compactMap { Self.object($0.payload)?["peak_kg"] as? Double }.map(Float.init) == peaks)
        #expect(events.allSatisfy { Self.object($0.payload)?["event_type"] as? String == "effort" })
        #expect(try Subscriber.retained(port: broker.port, filter: Self.base + "/effort/event").isEmpty)
        // Live deliveries carry no retain flag (MQTT 3.1.1); a new subscriber gets the retained last effort.
        let lastEffort = try Subscriber.retained(port: broker.port, filter: Self.base + "/effort").last
        #expect(lastEffort?.retained == true)
        #expect((lastEffort.flatMap { Self.object($0.payload)?["peak_kg"] as? Double }).map(Float.init) == peaks.last)

        // Live force: throttled, and within what the capture measured.
        let forces = subscriber.messages(on: Self.base + "/force")
        #expect(forces.count >= 8, "too few force messages: \(forces.count)")
        for (earlier, later) in zip(forces, forces.dropFirst()) {
            // 0.5 s apart when sent; the broker and mosquitto_sub may shift one by a scheduling delay.
            #expect(later.time - earlier.time >= 0.4, "force messages \(later.time - earlier.time) s apart")
        }
        if let first = forces.first, let last = forces.last {
            // At most two a second; the first and the last may each be shifted by the same delay as above.
            #expect(Double(forces.count) <= (last.time - first.time + 0.2) * 2 + 1)
        }
        let maximum = peaks.max() ?? 0
        #expect(forces.allSatisfy { Float($0.payload).map { $0 > -1 && $0 <= maximum } ?? false })

        #expect(subscriber.messages(on: Self.base + "/availability").map(\.payload).first == "online")
        daemon.stop()
        let offline = await waitUntil(seconds: 5) {
            subscriber.messages(on: Self.base + "/availability").last?.payload == "offline"
        }
        #expect(offline, "a graceful stop says offline")
    }

    @Test("an idle bridge sleeps past its STATUS refresh, and kill -9 leaves the last will, offline")
    func idleThenKilled() async throws {
        let broker = try MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, topic: Self.base + "/availability", directory: broker.directory)
        let daemon = try ReplayingDaemon(
            capture: Self.capture, speed: 16, mqtt: "url = \"mqtt://127.0.0.1:\(broker.port)\"",
            directory: broker.directory)
        let online = await waitUntil(seconds: 20) { subscriber.messages.last?.payload == "online" }
        #expect(online, "\(daemon.log)")
        let saved = await waitUntil(seconds: 30) { daemon.log.contains("Recording saved") }
        #expect(saved, "\(daemon.log)")
        // The bridge asks for STATUS 30 s after the last time; a timer that does not move its deadline spins the
        // bridge thread from then on (it did once). Idle, the whole daemon uses almost nothing.
        let before = daemon.cpuTicks
        try await Task.sleep(for: .seconds(33))
        let idleTicks = daemon.cpuTicks - before
        #expect(idleTicks < 50, "griptrackd used \(idleTicks) ticks in 33 idle seconds")
        daemon.kill()
        let offline = await waitUntil(seconds: 10) { subscriber.messages.last?.payload == "offline" }
        #expect(offline, "\(subscriber.messages.map(\.payload))")
        let retained = try Subscriber.retained(port: broker.port, filter: Self.base + "/availability")
        #expect(retained.map(\.payload) == ["offline"])
    }

    @Test("a broker that stops costs the recording nothing, and the bridge reconnects when it is back")
    func brokerRestartCostsNothing() async throws {
        let broker = try MosquittoBroker()
        let daemon = try ReplayingDaemon(
            capture: Self.capture, speed: 3, mqtt: "url = \"mqtt://127.0.0.1:\(broker.port)\"",
            directory: broker.directory)
        let connected = await waitUntil(seconds: 20) { daemon.log.contains("MQTT connected") }
        #expect(connected, "\(daemon.log)")
        broker.stop()
        let lost = await waitUntil(seconds: 10) { daemon.log.contains("MQTT connection lost") }
        #expect(lost, "\(daemon.log)")
        try await Task.sleep(for: .seconds(3))
        try broker.start()
        // Reconnects back off 1 s, growing; a new session re-sends availability and discovery (the broker kept
        // nothing: persistence is off).
        let back = await waitUntil(seconds: 40) {
            (try? Subscriber.retained(port: broker.port, filter: Self.base + "/availability").map(\.payload)) == ["online"]
        }
        #expect(back, "\(daemon.log)")
        let rediscovered = await waitUntil(seconds: 10) {
            (try? Subscriber.retained(port: broker.port, filter: "homeassistant/#"))?.count == 10
        }
        #expect(rediscovered)
        let ended = await waitUntil(seconds: 60) { daemon.log.contains("Recording saved") }
        #expect(ended, "\(daemon.log)")
        // What the same replay stores without MQTT (docs/home-assistant.md, "Tests"): three efforts, 5466 samples.
        #expect(daemon.log.contains("recording.efforts=3"), "\(daemon.log)")
        #expect(daemon.log.contains("recording.samples=5466"), "\(daemon.log)")
        #expect(daemon.log.contains("ring.dropped=0"))
    }

    @Test("commands are refused with a logged reason when allow_commands is false")
    func commandsRefusedWhenOff() async throws {
        let broker = try MosquittoBroker()
        let daemon = try ReplayingDaemon(
            capture: Self.capture, speed: 1, mqtt: "url = \"mqtt://127.0.0.1:\(broker.port)\"",
            directory: broker.directory)
        let connected = await waitUntil(seconds: 20) { daemon.log.contains("MQTT connected") }
        #expect(connected, "\(daemon.log)")
        try await Task.sleep(for: .milliseconds(300))
        try Subscriber.publish(port: broker.port, topic: Self.base + "/recording/set", payload: "ON")
        try Subscriber.publish(port: broker.port, topic: Self.base + "/tare/set", payload: "PRESS")
        let refused = await waitUntil(seconds: 10) {
            daemon.log.components(separatedBy: "allow_commands is off").count - 1 == 2
        }
        #expect(refused, "\(daemon.log)")
        try await Task.sleep(for: .milliseconds(500))
        #expect(!daemon.log.contains("recording.explicit=true"), "\(daemon.log)")
        #expect(!daemon.log.contains("MQTT command done"))
        daemon.stop()
    }

    @Test("with allow_commands the switch starts an explicit recording and a refused tare is logged with its reason")
    func commandsGoThroughTheSocket() async throws {
        let broker = try MosquittoBroker()
        let daemon = try ReplayingDaemon(
            capture: Self.capture, speed: 1,
            mqtt: "url = \"mqtt://127.0.0.1:\(broker.port)\"\nallow_commands = true", directory: broker.directory)
        let connected = await waitUntil(seconds: 20) { daemon.log.contains("MQTT connected") }
        #expect(connected, "\(daemon.log)")
        var configs: [Received] = []
        let discovered = await waitUntil(seconds: 10) {
            configs = (try? Subscriber.retained(port: broker.port, filter: "homeassistant/#")) ?? []
            return configs.count == 12
        }
        #expect(discovered, "\(configs.map(\.topic))")
        #expect(configs.contains { $0.topic == "homeassistant/switch/test-board/recording/config" })
        try Subscriber.publish(port: broker.port, topic: Self.base + "/recording/set", payload: "ON")
        let started = await waitUntil(seconds: 10) { daemon.log.contains("mqtt.command=record [GripMQTT] MQTT command done") }
        #expect(started, "\(daemon.log)")
        let recording = await waitUntil(seconds: 10) {
            (try? Subscriber.retained(port: broker.port, filter: Self.base + "/recording").map(\.payload)) == ["ON"]
        }
        #expect(recording)
        // A replay has no radio to tare: the daemon answers ERROR, and the bridge logs its text.
        try Subscriber.publish(port: broker.port, topic: Self.base + "/tare/set", payload: "PRESS")
        let tare = await waitUntil(seconds: 10) { daemon.log.contains("mqtt.command=tare mqtt.reason=") }
        #expect(tare, "\(daemon.log)")
        try Subscriber.publish(port: broker.port, topic: Self.base + "/recording/set", payload: "OFF")
        let stopped = await waitUntil(seconds: 10) { daemon.log.contains("mqtt.command=stop [GripMQTT] MQTT command done") }
        #expect(stopped, "\(daemon.log)")
        daemon.stop()
    }

    @Test("the recording switch is refused with the free plan's reason when the plan is full")
    func fullFreePlanRefusesTheSwitch() async throws {
        let broker = try MosquittoBroker()
        // Five recordings stored by `griptrack replay --save`, the free plan's limit.
        let griptrack = try ReplayingDaemon.executable(named: "griptrack")
        for _ in 0..<5 {
            try Spawn.run([
                griptrack, "replay", CaptureFixtures.url(Self.capture).path, "--save", "--db",
                broker.directory + "/griptrack.db",
            ])
        }
        let daemon = try ReplayingDaemon(
            capture: Self.capture, speed: 1,
            mqtt: "url = \"mqtt://127.0.0.1:\(broker.port)\"\nallow_commands = true", directory: broker.directory)
        let stored = await waitUntil(seconds: 20) {
            (try? Subscriber.retained(port: broker.port, filter: Self.base + "/recordings"))?.first
                .flatMap { Self.object($0.payload)?["stored"] as? Int } == 5
        }
        #expect(stored, "\(daemon.log)")
        try Subscriber.publish(port: broker.port, topic: Self.base + "/recording/set", payload: "ON")
        let refused = await waitUntil(seconds: 10) {
            daemon.log.contains("mqtt.command=record mqtt.reason=Free plan keeps 5 recordings")
        }
        #expect(refused, "\(daemon.log)")
        #expect(!daemon.log.contains("[GripDaemon] Recording started"), "\(daemon.log)")
        daemon.stop()
    }

    @Test("a broker that is down when griptrackd starts is connected to once it comes up")
    func brokerDownAtStart() async throws {
        let broker = try MosquittoBroker()
        broker.stop()
        let daemon = try ReplayingDaemon(
            capture: Self.capture, speed: 1, mqtt: "url = \"mqtt://127.0.0.1:\(broker.port)\"",
            directory: broker.directory)
        try await Task.sleep(for: .seconds(2))
        #expect(!daemon.log.contains("MQTT connected"))
        try broker.start()
        let online = await waitUntil(seconds: 30) {
            (try? Subscriber.retained(port: broker.port, filter: Self.base + "/availability").map(\.payload)) == ["online"]
        }
        #expect(online, "\(daemon.log)")
        daemon.stop()
    }

    @Test("mqtts: the bridge verifies the broker against ca_file; with another CA's it never connects and says why")
    func mqttsVerifiesTheBroker() async throws {
        let broker = try MosquittoBroker(tls: true)
        let certificate = try #require(broker.certificate)
        let daemon = try ReplayingDaemon(
            capture: Self.capture, speed: 1,
            mqtt: "url = \"mqtts://localhost:\(broker.port)\"\nca_file = \"\(certificate.certificatePath)\"",
            directory: broker.directory)
        let online = await waitUntil(seconds: 30) {
            (try? Subscriber.retained(
                port: broker.port, filter: Self.base + "/availability", caFile: certificate.certificatePath
            ).map(\.payload)) == ["online"]
        }
        #expect(online, "\(daemon.log)\n\(broker.log)")
        daemon.stop()

        // A certificate the broker was not signed with: the TLS handshake fails, nothing is published.
        let stranger = try SelfSignedCertificate(in: broker.directory, name: "stranger")
        try FileManager.default.createDirectory(atPath: broker.directory + "/stranger", withIntermediateDirectories: false)
        let refused = try ReplayingDaemon(
            capture: Self.capture, speed: 1,
            mqtt: "url = \"mqtts://localhost:\(broker.port)\"\nclient_id = \"gt-stranger\"\nca_file = \"\(stranger.certificatePath)\"",
            directory: broker.directory + "/stranger")
        let tried = await waitUntil(seconds: 20) { refused.log.contains("mqtt.tls=true [GripMQTT] MQTT connecting") }
        #expect(tried, "\(refused.log)")
        try await Task.sleep(for: .seconds(3))
        #expect(!refused.log.contains("MQTT connected"), "\(refused.log)")
        // libmosquitto's own reason, logged once although every retry fails the same way.
        let reason = "MQTT connection failed; retrying"
        #expect(refused.log.contains("certificate verify failed"), "\(refused.log)")
        #expect(refused.log.components(separatedBy: "certificate verify failed").count == 2, "\(refused.log)")
        #expect(refused.log.contains(reason), "\(refused.log)")
        refused.stop()
    }
}
