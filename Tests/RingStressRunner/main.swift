// The ring's two-thread stress scenarios (Tests/RingStress) as a program: `scripts/test` builds it in release under
// ThreadSanitizer, alone (`--product ring-stress`: GripStream and what it imports, not the whole package), and runs
// it. Any scenario's failure or TSan report fails the run.

import Glibc
import RingStress

let scenarios: [(name: String, run: () -> [String])] = [
    ("lossless with a waiting producer", RingStress.losslessWithPushWaiting),
    ("dropping producer, nothing lost uncounted", RingStress.droppingProducerLosesNothingUncounted),
    ("wake requests from a third thread", RingStress.wakeRequestsAreNeverLost),
]
var failed = false
for scenario in scenarios {
    let failures = scenario.run()
    print("ring-stress: \(scenario.name): " + (failures.isEmpty ? "ok" : failures.joined(separator: "; ")))
    failed = failed || !failures.isEmpty
}
exit(failed ? 1 : 0)
