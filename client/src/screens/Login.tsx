export default function Login() {
  return <h1>Login</h1>;
}
