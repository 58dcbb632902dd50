extension Duration {
    /// Whole milliseconds (truncated), for settings and headers expressed in milliseconds.
    package var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// Whole nanoseconds (truncated), for timers and NIO time amounts.
    package var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
