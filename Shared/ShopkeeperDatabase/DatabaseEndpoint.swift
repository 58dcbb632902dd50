/// One PostgreSQL to connect to: the parts of a `postgres://user:password@host:port/database` URL.
package struct DatabaseEndpoint: Sendable, Equatable {
    package var host: String
    package var port: Int
    package var username: String
    package var password: String?
    package var database: String

    package init(host: String, port: Int, username: String, password: String?, database: String) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }
}
