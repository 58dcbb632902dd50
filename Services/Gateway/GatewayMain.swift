import ShopkeeperHTTP

@main
struct GatewayMain {
    static func main() async {
        ServiceMain.useEventLoopsAsGlobalExecutor()
        await ServiceMain.run(service: "gateway") { environment, metrics in
            try await buildApplication(settings: try GatewaySettings.read(from: environment), metrics: metrics)
        }
    }
}
