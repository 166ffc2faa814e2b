package import APNs

extension Configuration {
    /// The APNs client settings of this configuration: push and channel management hosts, CA
    /// file, request timeout.
    package var apnsClientConfiguration: APNSClientConfiguration {
        var settings = APNSClientConfiguration(productionURL: apnsProductionURL, sandboxURL: apnsDevelopmentURL, caFile: apnsCAFile,
                                               requestTimeout: Double(apnsRequestTimeoutSeconds))
        settings.channelsProductionURL = apnsChannelsProductionURL
        settings.channelsSandboxURL = apnsChannelsDevelopmentURL
        return settings
    }
}
