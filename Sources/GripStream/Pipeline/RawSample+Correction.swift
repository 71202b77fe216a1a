import GripAnalysis
import GripWire

extension RawSample {
    /// This sample with a person's correction applied: the force, and a board's cells so that they still add up to
    /// it (each cell scaled, the offset shared equally: the correction was measured on the total).
    func corrected(by correction: ForceCorrection) -> RawSample {
        var sample = self
        sample.kilograms = correction.corrected(kilograms)
        if let cells {
            let share = ForceCorrection(scale: correction.scale, offsetKilograms: correction.offsetKilograms / 3)
            sample.cells = CellForces(
                left: share.corrected(cells.left), centre: share.corrected(cells.centre), right: share.corrected(cells.right))
        }
        return sample
    }
}
