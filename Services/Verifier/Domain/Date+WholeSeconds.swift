import Foundation

extension Date {
    /// This date without its fraction of a second: the precision Shopkeeper records store dates at.
    var wholeSeconds: Date {
        Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down))
    }

    /// The date of a store's UNIX-milliseconds timestamp, at whole seconds.
    init(storeMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: TimeInterval(milliseconds / 1000))
    }
}
