import ShopkeeperHTTP

@main
struct SandboxStoreMain {
    static func main() async {
        ServiceMain.useEventLoopsAsGlobalExecutor()
        await ServiceMain.run(service: "sandbox-store") { environment, metrics in
            try await buildApplication(settings: try SandboxStoreSettings.read(from: environment), metrics: metrics)
        }
    }
}
