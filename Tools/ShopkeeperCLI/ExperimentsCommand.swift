import ArgumentParser
import Foundation
import ShopkeeperModels

/// `shopkeeper experiments`: list an app's experiments, show one, start or stop it, and read its results (secret
/// key), as the console's Experiments page does.
struct ExperimentsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "experiments",
        abstract: "List, show, start and stop an app's experiments, and read their results (secret key).",
        discussion: """
            Experiments are created as drafts with POST /v1/admin/experiments (or in the console); here they are \
            started, stopped for good and read.
              shopkeeper experiments list
              shopkeeper experiments start annual_first --dry-run
              shopkeeper experiments results annual_first --format csv > results.csv
            """,
        subcommands: [List.self, Show.self, Start.self, Stop.self, Results.self]
    )

    /// The path of one experiment, its id encoded as one path segment.
    static func path(_ id: String, _ suffix: String = "") throws -> String {
        guard let segment = id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])),
            !id.isEmpty
        else { throw ValidationError("An experiment id is 1-100 letters, digits, '.', '_' or '-'.") }
        return "/v1/admin/experiments/\(segment)\(suffix)"
    }

    /// What starting or stopping takes: the connection, the experiment's id and whether it is a dry run.
    struct Change: ParsableArguments {
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The experiment's id.") var id: String
        @Flag(help: "Check that it can be done (nothing changes).") var dryRun = false

        /// `POST .../{id}/start` or `.../stop` (`verb`), with `dry_run=true` when asked; prints the experiment as it
        /// is (or would be) after.
        func run(_ verb: String) async throws {
            let path = try ExperimentsCommand.path(id, "/\(verb)" + (dryRun ? "?dry_run=true" : ""))
            try printJSON(try await connection.secretClient().send(.POST, path, as: Experiment.self))
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the experiments, newest first, as JSON.")
        @OptionGroup var connection: ConnectionOptions

        func run() async throws {
            try printJSON(
                try await connection.secretClient().send(.GET, "/v1/admin/experiments", as: ExperimentList.self))
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one experiment with its state.")
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The experiment's id.") var id: String

        func run() async throws {
            try printJSON(
                try await connection.secretClient().send(.GET, try ExperimentsCommand.path(id), as: Experiment.self))
        }
    }

    struct Start: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a draft: its audience is shown its variants from now on; its weights are then fixed.")
        @OptionGroup var change: Change

        func run() async throws { try await change.run("start") }
    }

    struct Stop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop a running experiment for good (its results stay; it is never started again).")
        @OptionGroup var change: Change

        func run() async throws { try await change.run("stop") }
    }

    struct Results: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print an experiment's results per variant (GET /v1/admin/reports/experiments/{id}).",
            discussion: """
                Customers exposed, trials, purchases, paying customers, refunds, conversion with its 95% credible \
                interval and chance to be best, revenue per customer by currency with its interval; the report's \
                `method` says how. JSON, or CSV (one row per variant and currency) with --format csv.
                """)
        @OptionGroup var connection: ConnectionOptions
        @Argument(help: "The experiment's id.") var id: String
        @Option(help: "json or csv.") var format = "json"

        func run() async throws {
            guard format == "json" || format == "csv" else { throw ValidationError("--format must be json or csv") }
            let reportPath = try ExperimentsCommand.path(id).replacingOccurrences(
                of: "/v1/admin/experiments/", with: "/v1/admin/reports/experiments/")
            let answer = try await connection.secretClient().get(
                reportPath, query: [URLQueryItem(name: "format", value: format)],
                accept: format == "csv" ? "text/csv" : "application/json")
            FileHandle.standardOutput.write(answer)
            if format == "json" { print() }
        }
    }
}
