import ShopkeeperHTTP

@main
struct SubscriptionsMain {
    static func main() async {
        ServiceMain.useEventLoopsAsGlobalExecutor()
        await ServiceMain.run(service: "subscriptions") { environment, metrics in
            try await buildApplication(settings: try SubscriptionsSettings.read(from: environment), metrics: metrics)
        }
    }
}
