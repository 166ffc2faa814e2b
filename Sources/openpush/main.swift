print("openpush")
