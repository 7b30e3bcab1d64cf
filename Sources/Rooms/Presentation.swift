/// A lesson a room's owner is presenting: which lesson, which of its steps, and, while the owner
/// looks around, their camera. Followers go where it says; a late joiner finds it in the room's
/// state. `camera` is a view link's `view=` text ("q…;d…;t…": rotation, distance, target), which
/// the web app writes and reads; the room only checks that it is short and made of those
/// characters.
public struct Presentation: Sendable, Equatable, Codable {
    public static let maximumSteps = 40
    public static let maximumCameraLength = 200

    public var lesson: String
    /// The step shown, counted from 0.
    public var step: Int
    /// The presenter's camera; absent: the step's own.
    public var camera: String?

    public init(lesson: String, step: Int, camera: String? = nil) {
        self.lesson = lesson; self.step = step; self.camera = camera
    }

    /// Letters of the camera's text: 'q', 'd', 't', digits, '.', ',', ';', '-' and 'e' (an exponent).
    static func isCameraByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || b == 0x2E || b == 0x2C || b == 0x3B || b == 0x2D || b == 0x71 || b == 0x64 || b == 0x74 || b == 0x65
    }

    func check() throws(RoomError) {
        try RoomState.checkID(lesson, what: "lesson id")
        guard (0..<Self.maximumSteps).contains(step) else {
            throw RoomError(.invalid, "step \(step): a lesson's steps are numbered 0 to \(Self.maximumSteps - 1)")
        }
        if let camera {
            guard (1...Self.maximumCameraLength).contains(camera.utf8.count), camera.utf8.allSatisfy(Self.isCameraByte) else {
                throw RoomError(.invalid, "camera: 1 to \(Self.maximumCameraLength) characters of a view link's view (q…;d…;t…)")
            }
        }
    }
}
