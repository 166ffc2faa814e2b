import Crypto

extension WebPushSimulator {
    /// RFC 8291 Appendix A: the user agent's keys, the auth secret, and the message the
    /// application server sent, with the plaintext it must decrypt to.
    enum RFC8291Vector {
        static let receiverPrivateKey = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let receiverPublicKey = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let authSecret = "BTBZMqHH6r4Tts7J_aSIgg"
        static let body = "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A_"
            + "yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"
        static let plaintext = "When I grow up, I want to be a watermelon"
    }

    /// Decrypts the RFC's message with the RFC's keys; throws unless it reads the RFC's plaintext.
    package static func selfCheck() throws(WebPushSimulatorError) {
        guard let scalar = Base64URL.decode(RFC8291Vector.receiverPrivateKey), let secret = Base64URL.decode(RFC8291Vector.authSecret),
              let body = Base64URL.decode(RFC8291Vector.body) else {
            throw WebPushSimulatorError("self-check: the RFC 8291 vector does not decode")
        }
        do {
            let receiver = try P256KeyPair(scalar: scalar)
            guard Base64URL.encode(receiver.publicKey) == RFC8291Vector.receiverPublicKey else {
                throw WebPushSimulatorError("self-check: the RFC 8291 receiver key does not derive its public key")
            }
            let plaintext = try WebPushEncryption.decrypt(body, receiver: receiver, authSecret: secret)
            guard plaintext == Array(RFC8291Vector.plaintext.utf8) else {
                throw WebPushSimulatorError("self-check: RFC 8291 Appendix A's message decrypts to something else")
            }
        } catch let error as WebPushSimulatorError {
            throw error
        } catch {
            throw WebPushSimulatorError("self-check: cannot decrypt RFC 8291 Appendix A's message: \(error)")
        }
    }
}
