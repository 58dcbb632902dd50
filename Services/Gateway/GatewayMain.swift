import ShopkeeperHTTP

@main
struct GatewayMain {
    static func main() async {
        await ServiceMain.start(service: "gateway") { environment, metrics in
            try await buildApplication(settings: try GatewaySettings.read(from: environment), metrics: metrics)
        }
    }
}
