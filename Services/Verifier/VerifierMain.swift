import ShopkeeperHTTP

@main
struct VerifierMain {
    static func main() async {
        await ServiceMain.start(service: "verifier") { environment, metrics in
            try await buildApplication(settings: try VerifierSettings.read(from: environment), metrics: metrics)
        }
    }
}
