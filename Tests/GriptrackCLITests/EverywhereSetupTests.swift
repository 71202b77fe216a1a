import Foundation
import GripTestSupport
import Testing

/// Issue 30 across devices: who pulled and how, and the protocol, reach `list --everywhere` and the trends per
/// athlete × hand × grip × protocol of `trends --everywhere` (server migration 7).
extension EverywhereCommandTests {
    typealias Seeds = ExportSetupTests

    @Test("list and trends --everywhere show athlete, hand, grip, edge, body weight and protocol as the device does")
    func setupEverywhere() async throws {
        let cluster = try PostgresCluster()
        let (gym, home) = try Self.gymAndHome(cluster)
        defer {
            gym.cleanUp()
            home.cleanUp()
        }
        try await Seeds.seed(gym)
        #expect(try await gym.run("sync").status == 0)

        // The JSON rows: every field `list --json` has on the device, beside the device's name.
        let keys = ["uuid", "hand", "label", "athlete", "grip", "edge_mm", "body_weight_kg", "protocol", "protocol_max_kg"]
        func rows(_ result: CLIRunner.Result) throws -> [[String: String]] {
            let recordings = try #require(Seeds.json(result.stdout)["recordings"] as? [[String: Any]], "\(result)")
            return recordings.map { row in
                Dictionary(uniqueKeysWithValues: keys.map { ($0, row[$0].map { "\($0)" } ?? "nil") })
            }
        }
        let local = try rows(try await gym.run("list", "--json"))
        let everywhere = try rows(try await home.run("list", "--everywhere", "--json"))
        #expect(everywhere == local)
        #expect(everywhere.contains { $0["edge_mm"] == "20" && $0["body_weight_kg"] == "61.5" && $0["protocol_max_kg"] == "40" })

        // The text: the same words after each row as `list` prints.
        let words = "Ana (61.5 kg), left hand, half crimp, 20 mm edge, protocol max 3x 10s rest 180s alternate (max 40.0 kg)"
        #expect(try await gym.run("list").stdout.contains(words))
        let text = try await home.run("list", "--everywhere")
        #expect(text.stdout.contains("  pi-gym  " + words + "\n"), "\(text)")

        // Trends per group: the groups and figures the device computes, each test named by its UUID.
        let localTrends = try await #require(Seeds.json(try gym.run("trends", "--json").stdout)["training"] as? [String: Any])
        let svgPath = home.directory.appendingPathComponent("everywhere.svg").path
        let remote = try await home.run("trends", "--everywhere", "--json", "--svg", svgPath)
        let remoteTrends = try #require(Seeds.json(remote.stdout)["training"] as? [String: Any], "\(remote)")
        func figures(_ training: [String: Any]) -> [String] {
            (training["groups"] as? [[String: Any]] ?? []).flatMap { group in
                (group["figures"] as? [[String: Any]] ?? []).map { figure in
                    ["athlete", "hand", "grip", "protocol"].map { "\(group[$0] ?? "nil")" }.joined(separator: "/") + ": "
                        + ["name", "tests", "first", "latest", "change_since_first", "slope_per_week"]
                            .map { "\(figure[$0] ?? "nil")" }.joined(separator: " ")
                }
            }
        }
        #expect(figures(remoteTrends) == figures(localTrends))
        #expect(figures(remoteTrends).count == 9, "\(figures(remoteTrends))")
        let point = ((remoteTrends["groups"] as? [[String: Any]])?.first?["figures"] as? [[String: Any]])?.first
        let named = (point?["points"] as? [[String: Any]])?.first
        #expect(named?["id"] == nil && (named?["uuid"] as? String)?.count == 36, "\(String(describing: named))")
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        #expect(svg.contains(">Ana · left hand · half crimp · protocol max 3x 10s rest 180s alternate — MVC — slope +2.0 kg/week</text>"))
    }

    @Test("asymmetry --everywhere pairs the account's left and right recordings as the device pairs its own")
    func asymmetryEverywhere() async throws {
        let cluster = try PostgresCluster()
        let (gym, home) = try Self.gymAndHome(cluster)
        defer {
            gym.cleanUp()
            home.cleanUp()
        }
        try await AsymmetryCommandTests.seed(gym)
        #expect(try await gym.run("sync").status == 0)

        func pairs(_ json: [String: Any]) -> [String] {
            (json["groups"] as? [[String: Any]] ?? []).flatMap { group in
                (group["pairs"] as? [[String: Any]] ?? []).map { pair in
                    ["day", "left_kg", "right_kg", "index"].map { "\(pair[$0] ?? "nil")" }.joined(separator: " ")
                }
            }
        }
        let local = try await Seeds.json(try gym.run("asymmetry", "--json").stdout)
        let remote = try await Seeds.json(try home.run("asymmetry", "--everywhere", "--athlete", "ana", "--json").stdout)
        #expect(pairs(remote) == pairs(local) && pairs(remote).count == 7, "\(remote)")
        #expect(remote["account"] as? String == "crag-gym")
        let group = try #require((remote["groups"] as? [[String: Any]])?.first)
        #expect(group["latest"] as? String == "outside")
        let left = ((group["pairs"] as? [[String: Any]])?.first?["left"] as? [String: Any]) ?? [:]
        #expect(left["id"] == nil && (left["uuid"] as? String)?.count == 36, "\(left)")
        let text = try await home.run("asymmetry", "--everywhere")
        #expect(text.stdout.contains("Latest (2026-11-08): -10.0 %, outside the band: stronger on the right than usual."), "\(text)")
    }
}
