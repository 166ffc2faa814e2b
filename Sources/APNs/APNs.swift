// The APNs client and simulator arrive here.
