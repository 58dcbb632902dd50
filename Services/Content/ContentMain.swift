import ShopkeeperHTTP

@main
struct ContentMain {
    static func main() async {
        ServiceMain.useEventLoopsAsGlobalExecutor()
        await ServiceMain.run(service: "content") { environment, metrics in
            try await buildApplication(settings: try ContentSettings.read(from: environment), metrics: metrics)
        }
    }
}
