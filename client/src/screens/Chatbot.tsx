export default function Chatbot() {
  return <h1>Chatbot</h1>;
}
