import ShopkeeperHTTP

@main
struct VerifierMain {
    static func main() async {
        ServiceMain.useEventLoopsAsGlobalExecutor()
        await ServiceMain.run(service: "verifier") { environment, metrics in
            try await buildApplication(settings: try VerifierSettings.read(from: environment), metrics: metrics)
        }
    }
}
