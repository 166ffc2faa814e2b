// APNs tests arrive here.
