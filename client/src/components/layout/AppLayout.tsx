import { Outlet } from '@tanstack/react-router';

export default function AppLayout() {
  return <Outlet />;
}
