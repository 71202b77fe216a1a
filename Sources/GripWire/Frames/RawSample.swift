/// One force sample exactly as the device reported it.
///
/// The value is kept lossless (the float32 the device sent) together with the device's own clock, so the
/// store can keep what the device said and analysis can decide how to interpret it.
public struct RawSample: Sendable, Equatable {
    /// Device time in microseconds since the last START command. Wraps at 2³² (≈71.6 min); see
    /// `GripAnalysis.DeviceClock` for unwrapping.
    public var deviceMicros: UInt32
    /// Force in kilogram-force, as reported (not baseline-subtracted).
    public var kilograms: Float
    /// For a device with several load cells (the Motherboard), each cell's share of ``kilograms``; nil otherwise.
    public var cells: CellForces?

    public init(deviceMicros: UInt32, kilograms: Float, cells: CellForces? = nil) {
        self.deviceMicros = deviceMicros
        self.kilograms = kilograms
        self.cells = cells
    }
}

/// The forces on a board's left, centre and right load cells (kg), whose total is the sample's force.
public struct CellForces: Sendable, Equatable {
    public var left: Float
    public var centre: Float
    public var right: Float

    public init(left: Float, centre: Float, right: Float) {
        self.left = left
        self.centre = centre
        self.right = right
    }
}
